/** Ending a session, whatever the cause: the browser stops, its slot frees, once. */
import { type GridDeps, launcherOf, poolsNamed } from '../core/grid-deps';
import type { LogEvent, SessionEndReason, SessionRecord } from '../core/ports';
import { pricesFor } from '../core/prices';
import { videoNotKept } from '../core/recording-keep';
import { NO_REQUEST_FEES, sessionCost } from '../core/session-cost';
import { releaseSlot } from '../core/slots';
import { outcomeOf } from '../core/test-marks';
import { runsOnAnotherHead } from './session-ownership';

const EVENT_BY_REASON: Record<SessionEndReason, LogEvent> = {
  deleted: 'SESSION_DELETED',
  'idle timeout': 'SESSION_TIMED_OUT',
  'max age': 'SESSION_TIMED_OUT',
  'browser exited': 'SESSION_ENDED',
  'server shutdown': 'SESSION_ENDED',
  'client gone': 'SESSION_ENDED',
  'creation failed': 'SESSION_ENDED',
  reclaimed: 'SESSION_ENDED',
};

/** Which session, by what the session ID carries, so a head that holds no record can still end it. */
export type SessionRef = Pick<SessionRecord, 'key' | 'pool' | 'handle' | 'upstreamId' | 'head'>;

/**
 * Ends the session: stops the browser and frees the slot (both idempotent, so this works without a
 * record too), and returns the record to the one caller that ended it, undefined to the others. When the
 * store fails to end the record, the browser stops and the slot frees all the same, and then the store's
 * error is thrown. Noted in deps.ending while under way: the session is refused as ended from its start.
 */
export function endSession(
  deps: GridDeps,
  session: SessionRef,
  reason: SessionEndReason,
): Promise<SessionRecord | undefined> {
  const end = endNow(deps, session, reason);
  return deps.ending ? deps.ending.track(session.key, end) : end;
}

async function endNow(
  deps: GridDeps,
  { key, pool, handle, upstreamId, head }: SessionRef,
  reason: SessionEndReason,
): Promise<SessionRecord | undefined> {
  // A store that answers the end failed may have taken it (its answer cut or late, the SDK's retry
  // throttled after an earlier attempt went through): no sweep would then see the record again, so the
  // browser must stop now. A record it did not take is ended by the expiry sweep (a local one at once, its
  // browser gone; another at its idle timeout).
  let record: SessionRecord | undefined;
  let failure: { error: unknown } | undefined;
  try {
    record = await deps.sessions.end(key, reason, deps.clock.now());
  } catch (error) {
    failure = { error };
  }
  // From now on its commands are refused here, before the browser stops: none reaches a hub that ended it.
  // The caller that ended it says why; a later caller (a head without the record) only if none did.
  if (record || !deps.ended.recall(key)) {
    const { idleTimeoutMs, maxAgeMs } = record ?? {};
    deps.ended.remember(key, { reason, idleTimeoutMs, maxAgeMs });
  }
  try {
    const poolConfig = poolsNamed(deps, pool)[0];
    // Decided on the record as the store ended it (with every mark the test made); without one, kept.
    const notKept = record && videoNotKept(record.recording?.keep, record);
    // Another head's browser is that head's to stop (session-ownership.ts).
    if (poolConfig && !runsOnAnotherHead(deps, { pool, head }))
      await launcherOf(deps, poolConfig)?.stop(handle, {
        key,
        pool: poolConfig,
        reason,
        upstreamId,
        ...(notKept ? { videoNotKept: notKept } : {}),
      });
  } catch (error) {
    deps.logger.log('BROWSER_STOP_FAILED', { session: key, pool, handle, error: String(error) });
  }
  // Idempotent in the store, so DELETE, the expiry sweep and a crash racing each other free it once.
  await releaseSlot(deps, key);
  if (failure) throw failure.error;
  if (!record) return undefined;
  // Once per session, by the one caller that ended it: a command costs no metric line of its own.
  if (record.commands) deps.metrics?.count('Commands', { pool: record.pool }, record.commands);
  // As the test said by its end; a result given later (the status page's API) changes the record, not this.
  // A session that never reached its client ran no test.
  if (reason !== 'creation failed' && reason !== 'client gone')
    deps.metrics?.count('TestResults', { pool: record.pool, outcome: outcomeOf(record) });
  const cost = sessionCost(record, pricesFor(deps.config.prices), deps.requestPricing ?? NO_REQUEST_FEES);
  // By pool as a metric; by user only in the log line (a user is never a metric dimension).
  if (cost) deps.metrics?.count('SessionCost', { pool: record.pool }, cost.dollars);
  deps.logger.log(EVENT_BY_REASON[reason], {
    session: key,
    user: record.user,
    pool: record.pool,
    reason,
    result: outcomeOf(record),
    durationMs: deps.clock.now() - record.createdAt,
    ...(cost
      ? { costDollars: cost.dollars, billedSeconds: cost.billedSeconds, capacity: cost.capacity }
      : {}),
  });
  return record;
}
