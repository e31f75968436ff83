/**
 * SessionStore in one DynamoDB table, shared by every router head (Lambda environments, Node servers):
 * the quota slots (dynamo-slot-ledger.ts) and the session records (dynamo-session-records.ts) of one table.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WebDriverError } from '../../core/errors';
import {
  type Clock,
  type CreationStage,
  type HeldSlot,
  RECORDED_LISTED_MAX,
  type Reclaim,
  type SessionEndReason,
  type SessionRecord,
  type SessionStore,
  type SlotAnswer,
  type SlotClaim,
  systemClock,
} from '../../core/ports';
import type { TestMarks } from '../../core/test-marks';
import { DynamoActivity } from './dynamo-activity';
import { DynamoSessionRecords } from './dynamo-session-records';
import { DynamoSlotLedger } from './dynamo-slot-ledger';
import { DynamoTable } from './dynamo-table';

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
  /** The most ended sessions with recordings listed (the newest); @default RECORDED_LISTED_MAX */
  maxRecorded?: number;
  /** Items per Query page of that list (tests); @default as many as it lists */
  recordedPageSize?: number;
  /** Hears what a touch write could not do; touch itself never throws. */
  onError?: (error: WebDriverError, context: { operation: 'touch'; key: string }) => void;
}

const DEFAULT_TOUCH_INTERVAL_MS = 15_000;
// As long as the memory store remembers ended sessions: later commands can still say why one is gone.
const DEFAULT_RETENTION_MS = 60 * 60_000;
export class DynamoSessionStore implements SessionStore {
  private readonly slotLedger: DynamoSlotLedger;
  private readonly records: DynamoSessionRecords;

  constructor(options: DynamoSessionStoreOptions) {
    // Records have optional fields (endedAt, endReason) that a running session leaves undefined.
    const doc = DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    const clock = options.clock ?? systemClock;
    const table = new DynamoTable(doc, options.table, clock);
    const activity = new DynamoActivity({
      doc,
      table: options.table,
      clock,
      touchIntervalMs: options.touchIntervalMs ?? DEFAULT_TOUCH_INTERVAL_MS,
      onError: options.onError,
    });
    this.slotLedger = new DynamoSlotLedger(table);
    this.records = new DynamoSessionRecords(table, activity, options.retentionMs ?? DEFAULT_RETENTION_MS, {
      max: options.maxRecorded ?? RECORDED_LISTED_MAX,
      pageSize: options.recordedPageSize,
    });
  }

  acquire(key: string, claim: SlotClaim): Promise<SlotAnswer> {
    return this.slotLedger.acquire(key, claim);
  }

  release(key: string): Promise<void> {
    return this.slotLedger.release(key);
  }

  inUse(): Promise<Record<string, number>> {
    return this.slotLedger.inUse();
  }

  inUseByUser(): Promise<Record<string, number>> {
    return this.slotLedger.inUseByUser();
  }

  slots(): Promise<HeldSlot[]> {
    return this.slotLedger.slots();
  }

  markStage(key: string, stage: CreationStage, at: number): Promise<void> {
    return this.slotLedger.markStage(key, stage, at);
  }

  add(record: SessionRecord): Promise<void> {
    return this.records.add(record);
  }

  get(key: string): Promise<SessionRecord | undefined> {
    return this.records.get(key);
  }

  running(): Promise<SessionRecord[]> {
    return this.records.running();
  }

  touch(key: string, at: number, method?: string, path?: string): void {
    this.records.touch(key, at, method, path);
  }

  /** Waits for the touch writes under way (tests; a server shutting down). */
  settled(): Promise<void> {
    return this.records.settled();
  }

  end(key: string, reason: SessionEndReason, at: number): Promise<SessionRecord | undefined> {
    return this.records.end(key, reason, at);
  }

  mark(key: string, marks: TestMarks): Promise<SessionRecord | undefined> {
    return this.records.mark(key, marks);
  }

  recordedSessions(): Promise<SessionRecord[]> {
    return this.records.recordedSessions();
  }

  markReclaimed(handle: string, reclaim: Reclaim): Promise<void> {
    return this.records.markReclaimed(handle, reclaim);
  }

  reclaimed(handle: string): Promise<Reclaim | undefined> {
    return this.records.reclaimed(handle);
  }
}
