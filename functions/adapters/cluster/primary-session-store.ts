/**
 * A worker's SessionStore: the primary's store, one slot ledger for the whole server, reached over the
 * IPC channel. touch() is on the command path, so it only notes the activity here; the notes go to the
 * primary in one batch per ACTIVITY_BATCH_MS (its expiry sweep then sees activity from every worker,
 * late by at most that, far below any idle timeout).
 */
import type {
  CreationStage,
  HeldSlot,
  Reclaim,
  SessionEndReason,
  SessionRecord,
  SessionStore,
  SlotAnswer,
  SlotClaim,
} from '../../core/ports';
import type { TestMarks } from '../../core/test-marks';
import type { StoreCall, Touch } from './cluster-messages';
import type { PrimaryCalls } from './primary-calls';

export const ACTIVITY_BATCH_MS = 250;

interface Noted {
  at: number;
  commands: number;
  method?: string;
  path?: string;
}

export class PrimarySessionStore implements SessionStore {
  private noted = new Map<string, Noted>();

  constructor(private readonly calls: PrimaryCalls) {}

  private call<T>(method: StoreCall, ...args: unknown[]): Promise<T> {
    return this.calls.call<T>({ port: 'sessions', method, args });
  }

  acquire(key: string, claim: SlotClaim): Promise<SlotAnswer> {
    return this.call('acquire', key, claim);
  }
  release(key: string): Promise<void> {
    return this.call('release', key);
  }
  inUse(): Promise<Record<string, number>> {
    return this.call('inUse');
  }
  inUseByUser(): Promise<Record<string, number>> {
    return this.call('inUseByUser');
  }
  slots(): Promise<HeldSlot[]> {
    return this.call('slots');
  }
  markStage(key: string, stage: CreationStage, at: number): Promise<void> {
    return this.call('markStage', key, stage, at);
  }
  add(record: SessionRecord): Promise<void> {
    return this.call('add', record);
  }
  async get(key: string): Promise<SessionRecord | undefined> {
    // JSON has no undefined: the primary's "none" arrives as null, or as no value at all.
    return (await this.call<SessionRecord | null>('get', key)) ?? undefined;
  }
  running(): Promise<SessionRecord[]> {
    return this.call('running');
  }
  async end(key: string, reason: SessionEndReason, at: number): Promise<SessionRecord | undefined> {
    return (await this.call<SessionRecord | null>('end', key, reason, at)) ?? undefined;
  }
  async mark(key: string, marks: TestMarks): Promise<SessionRecord | undefined> {
    return (await this.call<SessionRecord | null>('mark', key, marks)) ?? undefined;
  }
  recordedSessions(): Promise<SessionRecord[]> {
    return this.call('recordedSessions');
  }
  markReclaimed(handle: string, reclaim: Reclaim): Promise<void> {
    return this.call('markReclaimed', handle, reclaim);
  }
  async reclaimed(handle: string): Promise<Reclaim | undefined> {
    return (await this.call<Reclaim | null>('reclaimed', handle)) ?? undefined;
  }

  touch(key: string, at: number, method?: string, path?: string): void {
    const noted = this.noted.get(key);
    const command = method !== undefined && path !== undefined;
    if (!noted) {
      this.noted.set(key, command ? { at, commands: 1, method, path } : { at, commands: 0 });
      return;
    }
    if (at > noted.at) noted.at = at;
    if (!command) return;
    noted.commands++;
    noted.method = method;
    noted.path = path;
  }

  /** The activity noted since the last call, for one batch to the primary. */
  takeActivity(): Touch[] {
    if (this.noted.size === 0) return [];
    const touches: Touch[] = [];
    for (const [key, { at, commands, method, path }] of this.noted) {
      touches.push(method === undefined ? [key, at, commands] : [key, at, commands, method, path]);
    }
    this.noted = new Map();
    return touches;
  }
}
