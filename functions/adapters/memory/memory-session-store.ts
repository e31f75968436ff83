/** SessionStore in this process's memory: for one Node server (local mode) and for tests. */
import type { SessionEndReason, SessionRecord, SessionStore } from '../../core/ports';

// Ended sessions are remembered this long so that later commands can say why the session is gone.
const ENDED_RETENTION_MS = 60 * 60_000;
const ENDED_MAX = 10_000;

export class MemorySessionStore implements SessionStore {
  private readonly slots = new Map<string, string>(); // key → pool
  private readonly records = new Map<string, SessionRecord>();
  private readonly ended = new Map<string, SessionRecord>();

  async acquire(key: string, pool: string, limit: number): Promise<boolean> {
    if (this.slots.has(key)) return true;
    let taken = 0;
    for (const slotPool of this.slots.values()) if (slotPool === pool) taken++;
    if (taken >= limit) return false;
    this.slots.set(key, pool);
    return true;
  }

  async release(key: string): Promise<void> {
    this.slots.delete(key);
  }

  async inUse(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const pool of this.slots.values()) counts[pool] = (counts[pool] ?? 0) + 1;
    return counts;
  }

  async add(record: SessionRecord): Promise<void> {
    this.records.set(record.key, { ...record });
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    const record = this.records.get(key) ?? this.ended.get(key);
    return record && { ...record };
  }

  async running(): Promise<SessionRecord[]> {
    return [...this.records.values()].map((record) => ({ ...record }));
  }

  touch(key: string, at: number): void {
    const record = this.records.get(key);
    if (record) record.lastActivityAt = at;
  }

  async end(key: string, reason: SessionEndReason, at: number): Promise<SessionRecord | undefined> {
    const record = this.records.get(key);
    if (!record) return undefined;
    this.records.delete(key);
    const ended = { ...record, endedAt: at, endReason: reason };
    this.ended.set(key, ended);
    this.forgetOldEnded(at);
    return { ...ended };
  }

  private forgetOldEnded(now: number): void {
    for (const [key, record] of this.ended) {
      if (this.ended.size <= ENDED_MAX && now - (record.endedAt ?? now) < ENDED_RETENTION_MS) break;
      this.ended.delete(key);
    }
  }
}
