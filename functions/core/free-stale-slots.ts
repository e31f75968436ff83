/**
 * Quota slots held for nothing: no running session has the slot's key, and it was taken longer ago than
 * any launch may last. A head that died between taking a slot and recording its session, or a release the
 * store refused, would otherwise keep a pool (and a user) a slot short for good. Every Node head sweeps
 * them (any of several heads sharing a store may free one: release is idempotent), and so does the
 * scheduled cleanup on AWS.
 */
import type { GridDeps } from './grid-deps';
import { isStaleSlot } from './orphan-decisions';
import type { HeldSlot, SessionStore } from './ports';
import { releaseSlot } from './slots';

/** Slack past `timeouts.newSession`: a head's and another head's clocks may differ by a little. */
export const STALE_SLOT_GRACE_MS = 60_000;

export interface StaleSlotPolicy {
  /** `timeouts.newSession`: the longest a launch may go without a session record. */
  newSessionMs: number;
  graceMs: number;
}

/** The slots held for nothing now, by `policy`. */
export async function staleSlots(
  sessions: SessionStore,
  policy: StaleSlotPolicy,
  now: number,
): Promise<HeldSlot[]> {
  const [slots, running] = await Promise.all([sessions.slots(), sessions.running()]);
  const live = new Set(running.map((record) => record.key));
  return slots.filter((slot) => isStaleSlot(slot, live, policy, now));
}

/** Frees every stale slot (and wakes the queue); how many it freed. */
export async function freeStaleSlots(deps: GridDeps, graceMs = STALE_SLOT_GRACE_MS): Promise<number> {
  const policy = { newSessionMs: deps.config.timeouts.newSession, graceMs };
  const stale = await staleSlots(deps.sessions, policy, deps.clock.now());
  for (const slot of stale) await releaseSlot(deps, slot.key);
  if (stale.length > 0) {
    deps.logger.log('ORPHANS_REMOVED', {
      total: stale.length,
      reaped: { 'stale slot': stale.length },
      items: stale.map(({ key, pool, user }) => ({ reason: 'stale slot', session: key, pool, user })),
    });
  }
  return stale.length;
}
