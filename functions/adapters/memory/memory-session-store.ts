/** SessionStore in this process's memory: for one Node server (local mode) and for tests. */

import { commandName } from '../../core/command-name';
import { stageRank } from '../../core/creation-stages';
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
import { type TestMarks, withMarks } from '../../core/test-marks';

// Ended sessions are remembered this long so that later commands can say why the session is gone.
const ENDED_RETENTION_MS = 60 * 60_000;
const ENDED_MAX = 10_000;

export interface MemorySessionStoreOptions {
  /** The most ended sessions with recordings kept listed (the newest); @default RECORDED_LISTED_MAX */
  maxRecorded?: number;
}

interface Slot {
  pool: string;
  user: string;
  acquiredAt: number;
  stage?: CreationStage;
  stageAt?: number;
}

/** A running record, with its last command kept raw: its name is built when someone reads it. */
interface LiveRecord extends SessionRecord {
  lastMethod?: string;
  lastPath?: string;
}

export class MemorySessionStore implements SessionStore {
  private readonly held = new Map<string, Slot>(); // by session key
  private readonly records = new Map<string, LiveRecord>();
  private readonly ended = new Map<string, SessionRecord>();
  private readonly reclaims = new Map<string, Reclaim>(); // by launcher handle
  // Ended sessions with recordings, in the order they ended: kept while their recordings are.
  private readonly recorded = new Map<string, SessionRecord>();
  private readonly maxRecorded: number;

  constructor(
    private readonly clock: Clock = systemClock,
    options: MemorySessionStoreOptions = {},
  ) {
    this.maxRecorded = options.maxRecorded ?? RECORDED_LISTED_MAX;
  }

  // No await between the checks and the set: in one process that makes the step atomic.
  async acquire(key: string, { pool, poolLimit, user, userLimit }: SlotClaim): Promise<SlotAnswer> {
    if (this.held.has(key)) return { ok: true };
    let userHeld = 0;
    let poolHeld = 0;
    for (const slot of this.held.values()) {
      if (slot.user === user) userHeld++;
      if (slot.pool === pool) poolHeld++;
    }
    if (userLimit !== undefined && userHeld >= userLimit) return { ok: false, full: 'user', held: userHeld };
    if (poolHeld >= poolLimit) return { ok: false, full: 'pool', held: poolHeld };
    this.held.set(key, { pool, user, acquiredAt: this.clock.now() });
    return { ok: true };
  }

  async release(key: string): Promise<void> {
    this.held.delete(key);
  }

  async inUse(): Promise<Record<string, number>> {
    return this.count('pool');
  }

  async inUseByUser(): Promise<Record<string, number>> {
    return this.count('user');
  }

  async slots(): Promise<HeldSlot[]> {
    return [...this.held.entries()].map(([key, slot]) => ({ key, ...slot }));
  }

  async markStage(key: string, stage: CreationStage, at: number): Promise<void> {
    const slot = this.held.get(key);
    if (!slot) return;
    if (stageRank(slot.stage) >= stageRank(stage)) return;
    slot.stage = stage;
    slot.stageAt = at;
  }

  private count(by: 'pool' | 'user'): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const slot of this.held.values()) counts[slot[by]] = (counts[slot[by]] ?? 0) + 1;
    return counts;
  }

  async add(record: SessionRecord): Promise<void> {
    this.records.set(record.key, { ...record });
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    const live = this.records.get(key);
    if (live) return published(live);
    const record = this.ended.get(key) ?? this.recordedNow(key);
    return record && { ...record };
  }

  async running(): Promise<SessionRecord[]> {
    return [...this.records.values()].map(published);
  }

  // Called per command: no allocation here, the command's name is built by published() when read.
  touch(key: string, at: number, method?: string, path?: string): void {
    const record = this.records.get(key);
    if (!record) return;
    record.lastActivityAt = at;
    if (method === undefined || path === undefined) return;
    record.commands = (record.commands ?? 0) + 1;
    record.lastMethod = method;
    record.lastPath = path;
  }

  async end(key: string, reason: SessionEndReason, at: number): Promise<SessionRecord | undefined> {
    const record = this.records.get(key);
    if (!record) return undefined;
    this.records.delete(key);
    const ended = { ...published(record), endedAt: at, endReason: reason };
    this.ended.set(key, ended);
    this.forgetOldEnded(at);
    if (ended.recording) {
      this.recorded.set(key, ended);
      this.forgetOldRecorded(at);
    }
    return { ...ended };
  }

  async mark(key: string, marks: TestMarks): Promise<SessionRecord | undefined> {
    const live = this.records.get(key);
    if (live) {
      this.records.set(key, withMarks(live, marks));
      return this.get(key);
    }
    const ended = this.ended.get(key) ?? this.recordedNow(key);
    if (!ended) return undefined;
    const marked = withMarks(ended, marks);
    // Both lists hold the same session: what one answers, the other must too.
    if (this.ended.has(key)) this.ended.set(key, marked);
    if (this.recorded.has(key)) this.recorded.set(key, marked);
    return { ...marked };
  }

  async recordedSessions(): Promise<SessionRecord[]> {
    const now = this.clock.now();
    return [...this.recorded.values()]
      .filter((record) => stillKept(record, now))
      .sort(latestEndFirst)
      .map((record) => ({ ...record }));
  }

  async markReclaimed(handle: string, reclaim: Reclaim): Promise<void> {
    this.reclaims.delete(handle); // re-inserted last: the map stays in time order
    this.reclaims.set(handle, { ...reclaim });
    for (const [oldest, { at }] of this.reclaims) {
      if (this.reclaims.size <= ENDED_MAX && reclaim.at - at < ENDED_RETENTION_MS) break;
      this.reclaims.delete(oldest);
    }
  }

  async reclaimed(handle: string): Promise<Reclaim | undefined> {
    const reclaim = this.reclaims.get(handle);
    return reclaim && { ...reclaim };
  }

  private recordedNow(key: string): SessionRecord | undefined {
    const record = this.recorded.get(key);
    return record && stillKept(record, this.clock.now()) ? record : undefined;
  }

  // The newest maxRecorded, each while its recordings are kept: a session that ended late and kept short
  // may go before older ones kept long, so every one is looked at (at most maxRecorded + 1).
  private forgetOldRecorded(now: number): void {
    for (const [key, record] of this.recorded) if (!stillKept(record, now)) this.recorded.delete(key);
    while (this.recorded.size > this.maxRecorded) {
      const oldest = [...this.recorded.values()].sort(latestEndFirst).at(-1);
      if (oldest) this.recorded.delete(oldest.key);
    }
  }

  private forgetOldEnded(now: number): void {
    for (const [key, record] of this.ended) {
      if (this.ended.size <= ENDED_MAX && now - (record.endedAt ?? now) < ENDED_RETENTION_MS) break;
      this.ended.delete(key);
    }
  }
}

/** Whether an ended session's recordings are still kept at `now`. */
function stillKept(record: SessionRecord, now: number): boolean {
  return now - (record.endedAt ?? now) < (record.recording?.retentionMs ?? 0);
}

/** Latest end first; of two that ended at once, the greater key first (as the DynamoDB store's sort key orders them). */
function latestEndFirst(a: SessionRecord, b: SessionRecord): number {
  return (b.endedAt ?? 0) - (a.endedAt ?? 0) || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);
}

/** The record as the port describes it: a copy, its last command named. */
function published(live: LiveRecord): SessionRecord {
  const { lastMethod, lastPath, ...record } = live;
  if (lastMethod !== undefined && lastPath !== undefined)
    record.lastCommand = commandName(lastMethod, lastPath);
  return record;
}
