/**
 * Quota slots held for nothing: no running session has the slot's key, and it was taken longer ago than
 * any launch may last. A head that died between taking a slot and recording its session, or a release the
 * store refused, would otherwise keep a pool (and a user) a slot short for good. Every Node head sweeps
 * them (any of several heads sharing a store may free one: release is idempotent), and so does the
 * scheduled cleanup on AWS. Before a slot is freed, its pool's launcher ends what the dead head's creation
 * left at the remote end (a hub's session the head asked for but never recorded).
 */
import { type GridDeps, poolsNamed, runtimeOf } from './grid-deps';
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
  const abandoned = await endAbandoned(deps, stale);
  for (const slot of stale) await releaseSlot(deps, slot.key);
  if (stale.length > 0) {
    const upstream = abandoned.map((item) => ({ reason: 'abandoned upstream session', ...item }));
    deps.logger.log('ORPHANS_REMOVED', {
      total: stale.length + upstream.length,
      reaped: {
        'stale slot': stale.length,
        ...(upstream.length > 0 ? { 'abandoned upstream session': upstream.length } : {}),
      },
      items: [
        ...stale.map(({ key, pool, user }) => ({ reason: 'stale slot', session: key, pool, user })),
        ...upstream,
      ],
    });
  }
  return stale.length;
}

interface AbandonedSession {
  session: string;
  pool: string;
  upstreamId: string;
}

/**
 * Asks each stale slot's pool's launcher to end what the creation left at the remote end. A launcher that
 * fails (a hub that is down) is logged and the slots are freed anyway: they are gridgate's own, and the
 * remote end's own timeout is the last resort for its session.
 */
async function endAbandoned(deps: GridDeps, stale: readonly HeldSlot[]): Promise<AbandonedSession[]> {
  const ended: AbandonedSession[] = [];
  for (const poolName of new Set(stale.map((slot) => slot.pool))) {
    const pool = poolsNamed(deps, poolName)[0];
    const abandoned = pool && runtimeOf(deps, pool)?.abandoned;
    if (!pool || !abandoned) continue;
    const keys = stale.filter((slot) => slot.pool === poolName).map((slot) => slot.key);
    try {
      for (const [upstreamId, key] of await abandoned.endAbandoned(pool, keys)) {
        ended.push({ session: key, pool: poolName, upstreamId });
      }
    } catch (error) {
      deps.logger.log('BACKGROUND_TASK_FAILED', {
        task: 'abandoned upstream sessions',
        pool: poolName,
        error: String(error),
      });
    }
  }
  return ended;
}
