/** Turns a session ID from the URL into trusted claims, or W3C `invalid session id` without touching the network. */
import { formatDuration } from '../core/duration';
import { describeEnd } from '../core/ended-sessions';
import { invalidSessionId } from '../core/errors';
import { type GridDeps, sessionPool } from '../core/grid-deps';
import type { SessionClaims } from '../core/session-token';

export function verifySession(deps: GridDeps, token: string, user: string): SessionClaims {
  const check = deps.tokens.verify(token, user);
  const reject = (reason: string, message: string) => {
    deps.logger.log('SESSION_ID_REJECTED', { user, reason, id: token.slice(0, 24) });
    return invalidSessionId(message);
  };
  // Forged, altered, truncated and other users' IDs all fail the same check and get the same answer.
  if (!check.ok) throw reject(check.reason, 'no such session: the session ID is not valid for this user');
  const { claims } = check;
  // A pool a reload removed or changed stays reachable, as it was, for the sessions still in it.
  if (!sessionPool(deps, claims)) {
    throw reject('pool', `no such session: its pool "${claims.pool}" is not served here`);
  }
  if (deps.clock.now() - claims.createdAt >= claims.maxAgeMs) {
    throw reject(
      'max age',
      `session ended: it reached its maximum age of ${formatDuration(claims.maxAgeMs)}`,
    );
  }
  // Ended here: refused without the network, with the reason (a hub's own 404 could not give it).
  const ended = deps.ended.recall(claims.key);
  if (ended) throw reject('ended', `session ended: ${describeEnd(ended)}`);
  return claims;
}
