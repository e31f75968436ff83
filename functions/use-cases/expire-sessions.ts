/**
 * Ending sessions by time and all at once: the expiry sweep (idle timeout, maximum age) the Node server runs
 * every few seconds, and the shutdown's end of every session; each ended through endSession.
 */
import type { GridDeps } from '../core/grid-deps';
import type { SessionEndReason, SessionRecord } from '../core/ports';
import { endSession } from './end-session';

/**
 * Ends sessions past their idle timeout or maximum age, of those `mine` accepts (a router sharing its
 * store ends only what it can stop); run every few seconds by the Node server.
 */
export async function expireSessions(
  deps: GridDeps,
  mine: (record: SessionRecord) => boolean = () => true,
): Promise<number> {
  const now = deps.clock.now();
  const running = (await deps.sessions.running()).filter(mine);
  const expired = running.flatMap((record): [SessionRecord, SessionEndReason][] => {
    if (now - record.createdAt >= record.maxAgeMs) return [[record, 'max age']];
    if (now - record.lastActivityAt >= record.idleTimeoutMs) return [[record, 'idle timeout']];
    return [];
  });
  await Promise.all(expired.map(([record, reason]) => endSession(deps, record, reason)));
  return expired.length;
}

/** Ends every running session `mine` accepts, e.g. when the server shuts down. */
export async function endAllSessions(
  deps: GridDeps,
  reason: SessionEndReason,
  mine: (record: SessionRecord) => boolean = () => true,
): Promise<void> {
  const running = (await deps.sessions.running()).filter(mine);
  await Promise.all(running.map((record) => endSession(deps, record, reason)));
}
