/** What the SessionStore contract's tests store and claim, dated T0; other tests borrow the record. */
import type { SessionRecord, SlotClaim } from '../../functions/core/ports';

export const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

export function sampleRecord(key: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    key,
    user: 'guest',
    pool: 'local',
    browserName: 'chrome',
    browserVersion: '156.0',
    address: '127.0.0.1:9515',
    handle: `handle-${key}`,
    upstreamId: `upstream-${key}`,
    createdAt: T0,
    lastActivityAt: T0,
    idleTimeoutMs: 300_000,
    maxAgeMs: 3_600_000,
    ...overrides,
  };
}

/** A claim on a slot in `pool` for `user` (guest unless named), with no user limit unless given. */
export function slot(pool: string, poolLimit: number, user = 'guest', userLimit?: number): SlotClaim {
  return userLimit === undefined ? { pool, poolLimit, user } : { pool, poolLimit, user, userLimit };
}
