/**
 * The session records of the DynamoDB session store: running ones in one partition, ended ones kept a
 * while so later commands can say why, activity written at most once per touch interval, and the marks
 * of browsers their platform took back.
 */
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type {
  Reclaim,
  ReclaimMarks,
  SessionEndReason,
  SessionRecord,
  SessionRecords,
} from '../../core/ports';
import type { TestMarks } from '../../core/test-marks';
import type { DynamoActivity } from './dynamo-activity';
import {
  endedKey,
  expiresAt,
  isLive,
  RECORDED,
  RUNNING,
  reclaimKey,
  recordedKey,
  runningKey,
  toRecord,
} from './dynamo-session-items';
import { MARKED, markSession } from './dynamo-session-marks';
import type { DynamoTable } from './dynamo-table';
import {
  backoff,
  cancellationReasons,
  conditionFailed,
  conflicted,
  MAX_ATTEMPTS,
} from './dynamo-transaction';

/** How many ended sessions with recordings are listed, and in pages of how many (tests make both small). */
export interface RecordedListing {
  max: number;
  pageSize?: number;
}

export class DynamoSessionRecords implements SessionRecords, ReclaimMarks {
  constructor(
    private readonly table: DynamoTable,
    private readonly activity: DynamoActivity,
    private readonly retentionMs: number,
    private readonly listing: RecordedListing,
  ) {}

  /** A running record may go (TTL) once past its max age by the retention: by then the cleanup has ended it. */
  async add(record: SessionRecord): Promise<void> {
    return this.table.edge(async () => {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.name,
          Item: {
            ...record,
            ...runningKey(record.key),
            expiresAt: expiresAt(record.createdAt + record.maxAgeMs + this.retentionMs),
          },
        }),
      );
    });
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    return this.table.edge(async () => {
      const [running, ended] = await Promise.all([
        this.table.item(runningKey(key)),
        this.table.item(endedKey(key)),
      ]);
      const item = running ?? ended;
      return item && toRecord(item);
    });
  }

  /**
   * With the latest activity this head noted where the table's is older: a head's own expiry sweep must
   * not end a session idle by a time this head knows is past (an activity write not yet made or refused,
   * the new-session answer's among them).
   */
  async running(): Promise<SessionRecord[]> {
    return this.table.edge(async () => {
      const records: SessionRecord[] = [];
      const now = this.table.clock.now();
      for await (const item of this.table.partition(RUNNING)) {
        if (!isLive(item, now)) continue;
        const record = toRecord(item);
        const seen = this.activity.latest(record.key);
        if (seen !== undefined && seen > record.lastActivityAt) record.lastActivityAt = seen;
        records.push(record);
      }
      return records;
    });
  }

  /**
   * Cheap and synchronous: at most one write per session per touch interval, with the commands counted
   * since the last one (DynamoActivity says why and how).
   */
  touch(key: string, at: number, method?: string, path?: string): void {
    this.activity.touch(key, at, method, path);
  }

  /** Waits for the touch writes under way (tests; a server shutting down). */
  async settled(): Promise<void> {
    await this.activity.settled();
  }

  /**
   * Moves the record from the running partition to its ended item in one transaction. The delete is
   * conditional on the activity time that was read, so exactly one of concurrent callers wins, and the
   * ended record carries the latest activity (a touch in between makes the caller read again). A session
   * that recorded something is also put in the recorded partition, in the same transaction, and both items
   * are kept while its recordings are.
   */
  async end(key: string, reason: SessionEndReason, at: number): Promise<SessionRecord | undefined> {
    return this.table.edge(async () => {
      for (let attempt = 1; ; attempt++) {
        const item = await this.table.item(runningKey(key));
        if (!item) return undefined;
        const ended: SessionRecord = { ...toRecord(item), endedAt: at, endReason: reason };
        // Commands this head counted since its last write: the record has no later chance to get them.
        const unwritten = this.activity.unwritten(key);
        if (unwritten) {
          ended.commands = (ended.commands ?? 0) + unwritten.commands;
          ended.lastCommand = unwritten.lastCommand;
        }
        try {
          await this.table.doc.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Delete: {
                    TableName: this.table.name,
                    Key: runningKey(key),
                    // Also the counts read: commands another head counted, or a mark it made, meanwhile
                    // make us read again.
                    ConditionExpression: [
                      'lastActivityAt = :seen',
                      typeof item.commands === 'number'
                        ? 'commands = :commands'
                        : 'attribute_not_exists(commands)',
                      typeof item[MARKED] === 'number'
                        ? '#marked = :marked'
                        : 'attribute_not_exists(#marked)',
                    ].join(' AND '),
                    ExpressionAttributeNames: { '#marked': MARKED },
                    ExpressionAttributeValues: {
                      ':seen': item.lastActivityAt,
                      ...(typeof item.commands === 'number' ? { ':commands': item.commands } : {}),
                      ...(typeof item[MARKED] === 'number' ? { ':marked': item[MARKED] } : {}),
                    },
                  },
                },
                ...this.endedItems(ended, at).map((Item) => ({ Put: { TableName: this.table.name, Item } })),
              ],
            }),
          );
          this.activity.forget(key);
          return ended;
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (!reasons || attempt >= MAX_ATTEMPTS) throw error;
          // Ended by another caller (the next read finds nothing) or touched since the read: read again.
          if (conditionFailed(reasons[0])) continue;
          if (!conflicted(reasons)) throw error;
          await backoff(attempt);
        }
      }
    });
  }

  mark(key: string, marks: TestMarks): Promise<SessionRecord | undefined> {
    return this.table.edge(() => markSession(this.table, key, marks));
  }

  /** The ended record's item, and the recorded partition's for a session that recorded something. */
  private endedItems(ended: SessionRecord, at: number): Record<string, unknown>[] {
    const kept = ended.recording?.retentionMs;
    const endedItem = {
      ...ended,
      ...endedKey(ended.key),
      expiresAt: expiresAt(at + Math.max(this.retentionMs, kept ?? 0)),
    };
    if (kept === undefined) return [endedItem];
    return [endedItem, { ...ended, ...recordedKey(ended.key, at), expiresAt: expiresAt(at + kept) }];
  }

  /** One Query of the recorded partition, latest end first, stopping at the listing's bound. */
  async recordedSessions(): Promise<SessionRecord[]> {
    return this.table.edge(async () => {
      const records: SessionRecord[] = [];
      const now = this.table.clock.now();
      for await (const item of this.table.greatestFirst(RECORDED, this.listing.max, this.listing.pageSize))
        if (isLive(item, now)) records.push(toRecord(item));
      return records;
    });
  }

  /** The mark with the latest `at` wins, whatever order the platform's events arrive in. */
  async markReclaimed(handle: string, { at, reason }: Reclaim): Promise<void> {
    return this.table.edge(async () => {
      try {
        await this.table.doc.send(
          new PutCommand({
            TableName: this.table.name,
            Item: { ...reclaimKey(handle), at, reason, expiresAt: expiresAt(at + this.retentionMs) },
            ConditionExpression: 'attribute_not_exists(pk) OR #at <= :at',
            ExpressionAttributeNames: { '#at': 'at' },
            ExpressionAttributeValues: { ':at': at },
          }),
        );
      } catch (error) {
        if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      }
    });
  }

  async reclaimed(handle: string): Promise<Reclaim | undefined> {
    return this.table.edge(async () => {
      const item = await this.table.item(reclaimKey(handle));
      return item && { at: Number(item.at), reason: String(item.reason) };
    });
  }
}
