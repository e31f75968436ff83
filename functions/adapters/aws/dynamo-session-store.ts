/** SessionStore in one DynamoDB table, shared by every router head (Lambda environments, Node servers). */

import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { CREATION_STAGES, stageRank } from '../../core/creation-stages';
import type { WebDriverError } from '../../core/errors';
import {
  type Clock,
  type CreationStage,
  type HeldSlot,
  type Reclaim,
  type SessionEndReason,
  type SessionRecord,
  type SessionStore,
  type SlotAnswer,
  type SlotClaim,
  systemClock,
} from '../../core/ports';
import { DynamoActivity } from './dynamo-activity';
import {
  COUNTERS,
  endedKey,
  expiresAt,
  type ItemKey,
  isLive,
  numberAttribute,
  POOL_PREFIX,
  poolCounterKey,
  RUNNING,
  reclaimKey,
  runningKey,
  SLOTS,
  slotKey,
  toRecord,
  USER_PREFIX,
  userCounterKey,
} from './dynamo-session-items';
import { storeError } from './dynamo-store-error';
import {
  backoff,
  cancellationReasons,
  conditionFailed,
  conflicted,
  MAX_ATTEMPTS,
} from './dynamo-transaction';

export interface DynamoSessionStoreOptions {
  /** Made once per environment by the entry; the store only wraps it. */
  client: DynamoDBClient;
  /** The table of infra/session-table.ts. */
  table: string;
  clock?: Clock;
  /** At most one activity write per session this often; the first touch of a session writes at once. */
  touchIntervalMs?: number;
  /** How long ended records and reclaim marks stay readable (and running ones past their max age). */
  retentionMs?: number;
  /** Hears what a touch write could not do; touch itself never throws. */
  onError?: (error: WebDriverError, context: { operation: 'touch'; key: string }) => void;
}

const DEFAULT_TOUCH_INTERVAL_MS = 15_000;
// As long as the memory store remembers ended sessions: later commands can still say why one is gone.
const DEFAULT_RETENTION_MS = 60 * 60_000;
export class DynamoSessionStore implements SessionStore {
  private readonly doc: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly clock: Clock;
  private readonly retentionMs: number;
  private readonly activity: DynamoActivity;

  constructor(options: DynamoSessionStoreOptions) {
    // Records have optional fields (endedAt, endReason) that a running session leaves undefined.
    this.doc = DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.table = options.table;
    this.clock = options.clock ?? systemClock;
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.activity = new DynamoActivity({
      doc: this.doc,
      table: this.table,
      clock: this.clock,
      touchIntervalMs: options.touchIntervalMs ?? DEFAULT_TOUCH_INTERVAL_MS,
      onError: options.onError,
    });
  }

  /**
   * One transaction takes the slot and counts it for the user and the pool, so the counters can never
   * disagree with the slots, whichever head or crash comes between. The user's counter comes before the
   * pool's so that, when both are full, the user's limit is the one named.
   */
  async acquire(key: string, { pool, poolLimit, user, userLimit }: SlotClaim): Promise<SlotAnswer> {
    return this.edge(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.doc.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Put: {
                    TableName: this.table,
                    Item: { ...slotKey(key), pool, user, token: randomUUID(), acquiredAt: this.clock.now() },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
                { Update: this.countOne(userCounterKey(user), userLimit) },
                { Update: this.countOne(poolCounterKey(pool), poolLimit) },
              ],
            }),
          );
          return { ok: true };
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (!reasons) throw error;
          const [slot, userCount, poolCount] = reasons;
          // The key holds a slot already: acquiring is idempotent per key, even when all is full now.
          if (conditionFailed(slot)) return { ok: true };
          if (conditionFailed(userCount)) return { ok: false, full: 'user', held: heldIn(userCount?.Item) };
          if (conditionFailed(poolCount)) return { ok: false, full: 'pool', held: heldIn(poolCount?.Item) };
          if (!conflicted(reasons) || attempt >= MAX_ATTEMPTS) throw error;
          await backoff(attempt);
        }
      }
    });
  }

  /** ADD 1 to a counter, below `limit` when there is one; the refused item comes back to say how many. */
  private countOne(key: ItemKey, limit: number | undefined) {
    const below =
      limit === undefined
        ? {}
        : {
            // A counter not yet written holds 0, which is below any positive limit.
            ConditionExpression: limit > 0 ? 'attribute_not_exists(held) OR held < :limit' : 'held < :limit',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
          };
    return {
      TableName: this.table,
      Key: key,
      UpdateExpression: 'ADD held :one',
      ExpressionAttributeValues: { ':one': 1, ...(limit === undefined ? {} : { ':limit': limit }) },
      ...below,
    };
  }

  /**
   * Deletes the slot and takes it off both counters in one transaction. The delete is conditional on
   * the very slot that was read (its token), so of concurrent releases exactly one frees it, and a
   * release that raced a re-acquire of the same key never decrements the new slot's counters.
   */
  async release(key: string): Promise<void> {
    return this.edge(async () => {
      for (let attempt = 1; ; attempt++) {
        const { Item: slot } = await this.doc.send(
          new GetCommand({ TableName: this.table, Key: slotKey(key), ConsistentRead: true }),
        );
        if (!slot) return;
        const decrement = (counter: ItemKey) => ({
          TableName: this.table,
          Key: counter,
          UpdateExpression: 'ADD held :minusOne',
          ExpressionAttributeValues: { ':minusOne': -1 },
        });
        try {
          await this.doc.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Delete: {
                    TableName: this.table,
                    Key: slotKey(key),
                    ConditionExpression: '#token = :token',
                    ExpressionAttributeNames: { '#token': 'token' },
                    ExpressionAttributeValues: { ':token': slot.token },
                  },
                },
                { Update: decrement(userCounterKey(String(slot.user))) },
                { Update: decrement(poolCounterKey(String(slot.pool))) },
              ],
            }),
          );
          return;
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (!reasons) throw error;
          // Another release freed this slot first: ours has nothing left to do.
          if (conditionFailed(reasons[0])) return;
          if (!conflicted(reasons) || attempt >= MAX_ATTEMPTS) throw error;
          await backoff(attempt);
        }
      }
    });
  }

  async inUse(): Promise<Record<string, number>> {
    return this.edge(() => this.counters(POOL_PREFIX));
  }

  async inUseByUser(): Promise<Record<string, number>> {
    return this.edge(() => this.counters(USER_PREFIX));
  }

  async slots(): Promise<HeldSlot[]> {
    return this.edge(async () => {
      const held: HeldSlot[] = [];
      for await (const { sk, pool, user, acquiredAt, stage, stageAt } of this.partition(SLOTS)) {
        held.push({
          key: String(sk),
          pool: String(pool),
          user: String(user),
          acquiredAt: Number(acquiredAt),
          ...(stageRank(stage) >= 0 ? { stage: stage as CreationStage, stageAt: Number(stageAt) } : {}),
        });
      }
      return held;
    });
  }

  /**
   * One conditional UpdateItem on the slot: only while the slot exists (never makes one for a key whose
   * slot is gone) and only forward (the stage stored is none or an earlier one), so marks that arrive
   * late, twice or from another head change nothing.
   */
  async markStage(key: string, stage: CreationStage, at: number): Promise<void> {
    const earlier = CREATION_STAGES.slice(0, stageRank(stage));
    const names = Object.fromEntries(earlier.map((name, i) => [`:earlier${i}`, name]));
    const forward = earlier.length
      ? `(attribute_not_exists(stage) OR stage IN (${Object.keys(names).join(', ')}))`
      : 'attribute_not_exists(stage)';
    return this.edge(async () => {
      try {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: slotKey(key),
            UpdateExpression: 'SET stage = :stage, stageAt = :at',
            ConditionExpression: `attribute_exists(pk) AND ${forward}`,
            ExpressionAttributeValues: { ':stage': stage, ':at': at, ...names },
          }),
        );
      } catch (error) {
        if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      }
    });
  }

  /** Every item of one partition (whose sort key starts with `prefix`), read consistently, page by page. */
  private async *partition(pk: string, prefix?: string): AsyncGenerator<Record<string, unknown>> {
    const pages = paginateQuery(
      { client: this.doc },
      {
        TableName: this.table,
        KeyConditionExpression: prefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: prefix === undefined ? { ':pk': pk } : { ':pk': pk, ':prefix': prefix },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) yield* page.Items ?? [];
  }

  /** Counters that hold slots, by name; a counter that went back to 0 stays as an item but is left out. */
  private async counters(prefix: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for await (const item of this.partition(COUNTERS, prefix)) {
      const held = numberAttribute(item.held);
      if (held > 0) counts[String(item.sk).slice(prefix.length)] = held;
    }
    return counts;
  }

  /** A running record may go (TTL) once past its max age by the retention: by then the cleanup has ended it. */
  async add(record: SessionRecord): Promise<void> {
    return this.edge(async () => {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
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
    return this.edge(async () => {
      const [running, ended] = await Promise.all([this.item(runningKey(key)), this.item(endedKey(key))]);
      const item = running ?? ended;
      return item && toRecord(item);
    });
  }

  async running(): Promise<SessionRecord[]> {
    return this.edge(async () => {
      const records: SessionRecord[] = [];
      const now = this.clock.now();
      for await (const item of this.partition(RUNNING)) if (isLive(item, now)) records.push(toRecord(item));
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
   * ended record carries the latest activity (a touch in between makes the caller read again).
   */
  async end(key: string, reason: SessionEndReason, at: number): Promise<SessionRecord | undefined> {
    return this.edge(async () => {
      for (let attempt = 1; ; attempt++) {
        const item = await this.item(runningKey(key));
        if (!item) return undefined;
        const ended: SessionRecord = { ...toRecord(item), endedAt: at, endReason: reason };
        // Commands this head counted since its last write: the record has no later chance to get them.
        const unwritten = this.activity.unwritten(key);
        if (unwritten) {
          ended.commands = (ended.commands ?? 0) + unwritten.commands;
          ended.lastCommand = unwritten.lastCommand;
        }
        try {
          await this.doc.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Delete: {
                    TableName: this.table,
                    Key: runningKey(key),
                    // Also the count read: a command count another head added meanwhile makes us read again.
                    ConditionExpression:
                      typeof item.commands === 'number'
                        ? 'lastActivityAt = :seen AND commands = :commands'
                        : 'lastActivityAt = :seen AND attribute_not_exists(commands)',
                    ExpressionAttributeValues: {
                      ':seen': item.lastActivityAt,
                      ...(typeof item.commands === 'number' ? { ':commands': item.commands } : {}),
                    },
                  },
                },
                {
                  Put: {
                    TableName: this.table,
                    Item: { ...ended, ...endedKey(key), expiresAt: expiresAt(at + this.retentionMs) },
                  },
                },
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

  /** The mark with the latest `at` wins, whatever order the platform's events arrive in. */
  async markReclaimed(handle: string, { at, reason }: Reclaim): Promise<void> {
    return this.edge(async () => {
      try {
        await this.doc.send(
          new PutCommand({
            TableName: this.table,
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
    return this.edge(async () => {
      const item = await this.item(reclaimKey(handle));
      return item && { at: Number(item.at), reason: String(item.reason) };
    });
  }

  /** A live item (strongly consistent: a head must see what another head just wrote). */
  private async item(key: ItemKey): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }),
    );
    return Item && isLive(Item, this.clock.now()) ? Item : undefined;
  }

  /** Every SDK error leaves the adapter as a WebDriverError the HTTP layer can send. */
  private async edge<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw storeError(this.table, error);
    }
  }
}

function heldIn(item: Record<string, unknown> | undefined): number {
  return numberAttribute(item?.held);
}
