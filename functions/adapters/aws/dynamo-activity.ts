/**
 * A session's activity as the DynamoDB store writes it from the command path: its last activity time and
 * its command count, written at most once per touch interval per session, never awaited by the command.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { commandName } from '../../core/command-name';
import type { WebDriverError } from '../../core/errors';
import type { Clock } from '../../core/ports';
import { runningKey } from './dynamo-session-items';
import { storeError } from './dynamo-store-error';

export interface DynamoActivityOptions {
  doc: DynamoDBDocumentClient;
  table: string;
  clock: Clock;
  touchIntervalMs: number;
  onError?: (error: WebDriverError, context: { operation: 'touch'; key: string }) => void;
}

// Above this many remembered sessions, those not written for a touch interval are forgotten.
const TOUCH_MEMORY = 1_000;

/** What this head noted of a session since its last write; mutated in place, so a command allocates nothing. */
interface Noted {
  /** When this head last wrote the session's activity (clock time). */
  writtenAt: number;
  /** The latest activity this head noted, written or not. */
  latestAt: number;
  /** Commands counted since that write. */
  pending: number;
  /** The latest command's method and path, named only when written. */
  method?: string;
  path?: string;
}

export class DynamoActivity {
  private readonly noted = new Map<string, Noted>();
  private readonly writes = new Set<Promise<void>>();

  constructor(private readonly options: DynamoActivityOptions) {}

  /**
   * Why write at all, on a path that must stay cheap: several router heads share this table and each
   * ends sessions that have been idle too long, judging by lastActivityAt. A head that kept activity to
   * itself would let another head end a busy session. So the first touch of a session writes at once and
   * later ones at most once per touch interval (the stored time lags the truth by less than that, far
   * below any idle timeout); the write is not awaited, never moves the time backwards, never brings an
   * ended session back, and its errors go to onError instead of to the command being proxied.
   *
   * Commands are counted in memory between writes and added in that same write (ADD, so the counts of
   * every head sum up); the store's end() adds those counted after the session's last write.
   */
  touch(key: string, at: number, method?: string, path?: string): void {
    const now = this.options.clock.now();
    let noted = this.noted.get(key);
    if (noted === undefined) {
      noted = { writtenAt: Number.NEGATIVE_INFINITY, latestAt: at, pending: 0 };
      this.noted.set(key, noted);
    } else if (at > noted.latestAt) noted.latestAt = at;
    if (method !== undefined && path !== undefined) {
      noted.pending++;
      noted.method = method;
      noted.path = path;
    }
    if (now - noted.writtenAt < this.options.touchIntervalMs) return;
    noted.writtenAt = now;
    this.forgetOld(now);
    this.write(key, at, noted);
  }

  /**
   * The latest activity this head noted for the session, which the table may not show yet: the write is
   * throttled to the touch interval, not awaited, and may be refused.
   */
  latest(key: string): number | undefined {
    return this.noted.get(key)?.latestAt;
  }

  /** The commands counted since the session's last write, if any, and the last one's name. */
  unwritten(key: string): { commands: number; lastCommand?: string } | undefined {
    const noted = this.noted.get(key);
    if (!noted || noted.pending === 0) return undefined;
    return { commands: noted.pending, lastCommand: lastCommand(noted) };
  }

  /** Forgets a session (ended: nothing more to write for it). */
  forget(key: string): void {
    this.noted.delete(key);
  }

  /** Waits for the writes under way (tests; a server shutting down). */
  async settled(): Promise<void> {
    await Promise.all([...this.writes]);
  }

  private write(key: string, at: number, noted: Noted): void {
    const { doc, table } = this.options;
    const commands = noted.pending;
    const counted = commands > 0 ? { ':n': commands, ':c': lastCommand(noted) } : {};
    noted.pending = 0;
    const write = doc
      .send(
        new UpdateCommand({
          TableName: table,
          Key: runningKey(key),
          UpdateExpression:
            commands > 0
              ? 'SET lastActivityAt = :at, lastCommand = :c ADD commands :n'
              : 'SET lastActivityAt = :at',
          ConditionExpression: 'attribute_exists(pk) AND lastActivityAt < :at',
          ExpressionAttributeValues: { ':at': at, ...counted },
        }),
      )
      .then(
        () => undefined,
        (error: unknown) => {
          if (!conditionFailed(error)) throw error;
          // A later activity is stored already (another head's), or the session is not running. The
          // count still adds up while it runs; the later time and last command stay.
          if (commands === 0) return;
          return doc
            .send(
              new UpdateCommand({
                TableName: table,
                Key: runningKey(key),
                UpdateExpression: 'ADD commands :n',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':n': commands },
              }),
            )
            .then(() => undefined);
        },
      )
      .catch((error: unknown) => {
        // Not running any more: nothing to note.
        if (conditionFailed(error)) return;
        this.options.onError?.(storeError(table, error), { operation: 'touch', key });
      })
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  private forgetOld(now: number): void {
    if (this.noted.size <= TOUCH_MEMORY) return;
    for (const [key, noted] of this.noted) {
      if (now - noted.writtenAt < this.options.touchIntervalMs) continue;
      // Commands counted since the last write go to the table before they are forgotten.
      if (noted.pending > 0) this.write(key, noted.writtenAt, noted);
      this.noted.delete(key);
    }
  }
}

function lastCommand(noted: Noted): string | undefined {
  return noted.method !== undefined && noted.path !== undefined
    ? commandName(noted.method, noted.path)
    : undefined;
}

function conditionFailed(error: unknown): boolean {
  return (error as { name?: string }).name === 'ConditionalCheckFailedException';
}
