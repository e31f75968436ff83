/** Turns a session ID from the URL into trusted claims, or W3C `invalid session id` without touching the network. */
import { formatDuration } from '../core/duration';
import { describeEnd } from '../core/ended-sessions';
import { invalidSessionId } from '../core/errors';
import { type GridDeps, sessionPool } from '../core/grid-deps';
import type { SessionClaims } from '../core/session-token';

/** The claims of a running session of this user's. */
export function verifySession(deps: GridDeps, token: string, user: string): SessionClaims {
  // Runs for every command: nothing is allocated unless the ID is refused.
  const claims = verifySessionOwner(deps, token, user);
  if (deps.clock.now() - claims.createdAt >= claims.maxAgeMs) {
    const message = `session ended: it reached its maximum age of ${formatDuration(claims.maxAgeMs)}`;
    throw rejected(deps, user, token, 'max age', message);
  }
  // Ended here: refused without the network, with the reason (a hub's own 404 could not give it).
  const ended = deps.ended.recall(claims.key);
  if (ended) throw rejected(deps, user, token, 'ended', `session ended: ${describeEnd(ended)}`);
  return claims;
}

/**
 * verifySession for a DELETE: a session whose end this process has under way (the expiry sweep's, its
 * browser's exit) is refused only once that end is over, its browser stopped and its slot free, so that a
 * client told its session is gone finds the slot free, as after its own DELETE.
 */
export async function verifySessionToDelete(
  deps: GridDeps,
  token: string,
  user: string,
): Promise<SessionClaims> {
  await deps.ending?.settled(verifySessionOwner(deps, token, user).key);
  return verifySession(deps, token, user);
}

/**
 * The claims of a session of this user's, running or ended: what its recordings, logs and downloads are
 * served by after it ended (maximum age included). Only the ID is checked: its signature, its user, its pool.
 */
export function verifySessionOwner(deps: GridDeps, token: string, user: string): SessionClaims {
  const check = deps.tokens.verify(token, user);
  // Forged, altered, truncated and other users' IDs all fail the same check and get the same answer.
  if (!check.ok) {
    const message = 'no such session: the session ID is not valid for this user';
    throw rejected(deps, user, token, check.reason, message);
  }
  const { claims } = check;
  // A pool a reload removed or changed stays reachable, as it was, for the sessions still in it.
  if (!sessionPool(deps, claims)) {
    const message = `no such session: its pool "${claims.pool}" is not served here`;
    throw rejected(deps, user, token, 'pool', message);
  }
  return claims;
}

function rejected(deps: GridDeps, user: string, token: string, reason: string, message: string) {
  deps.logger.log('SESSION_ID_REJECTED', { user, reason, id: token.slice(0, 24) });
  return invalidSessionId(message);
}
