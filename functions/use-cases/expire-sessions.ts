/**
 * Ending sessions by time and all at once: the expiry sweep (idle timeout, maximum age, a browser gone) the
 * Node server runs every few seconds, and the shutdown's end of every session; each ended through endSession.
 */
import type { GridDeps } from '../core/grid-deps';
import type { SessionEndReason, SessionRecord } from '../core/ports';
import { endSession } from './end-session';

/** Which records a sweep looks at, and what it knows of their browsers beyond the store. */
export interface ExpiryScope {
  /** The records this sweep may end (a router sharing its store ends only what it can stop); default: all. */
  mine?: (record: SessionRecord) => boolean;
  /**
   * Why the record's browser is gone, when it is known to be (a local one this process no longer runs):
   * it was stopped or its creation failed while the store could not end the record, or the store took a
   * write the client was told had failed. Nothing else would ever end such a record, so it ends now, for
   * that reason. Asked after the store was read, so a session recorded meanwhile is seen with its browser.
   */
  gone?: (record: SessionRecord) => SessionEndReason | undefined;
}

/**
 * Ends sessions past their idle timeout or maximum age, or whose browser is gone, of those `mine`
 * accepts; run every few seconds by the Node server.
 */
export async function expireSessions(deps: GridDeps, scope: ExpiryScope = {}): Promise<number> {
  const { mine = () => true, gone = () => undefined } = scope;
  const now = deps.clock.now();
  // A session whose creation is still recording it has not been answered yet: its idle time has not begun.
  const running = (await deps.sessions.running()).filter(
    (record) => mine(record) && !deps.creating?.has(record.key),
  );
  const expired = running.flatMap((record): [SessionRecord, SessionEndReason][] => {
    const goneFor = gone(record);
    if (goneFor) return [[record, goneFor]];
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
