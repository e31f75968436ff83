/**
 * An upstream's own `invalid session id` (W3C §6.6: 404) for a session gridgate still routes. A local
 * chromedriver says so once its Chromium is gone ("session deleted as the browser has closed the
 * connection"): the session is over, so it is ended here, slot, chromedriver and profile included. A hub
 * says so of a session gridgate already ended. Either way the client gets gridgate's reason. Only 404
 * answers are read, and only their small error body, so a command that succeeds pays nothing.
 */
import type { WebDriverError } from '../core/errors';
import { type GridDeps, sessionPool, traitsOf } from '../core/grid-deps';
import type { SessionClaims } from '../core/session-token';
import { sessionGone } from './session-gone';

/** Whether an answer with this status must be read before it is passed on. */
export const mayMeanSessionGone = (status: number) => status === 404;

/** gridgate's own answer in place of the upstream's `body`, or undefined to pass the upstream's on. */
export async function upstreamSessionGone(
  deps: GridDeps,
  claims: SessionClaims,
  body: string,
): Promise<WebDriverError | undefined> {
  if (!saysInvalidSessionId(body)) return undefined;
  const pool = sessionPool(deps, claims);
  if (!pool || !traitsOf(deps, pool).boundToItsHead) {
    const record = await deps.sessions.get(claims.key);
    if (record?.endReason === undefined) return undefined;
  }
  return sessionGone(deps, claims);
}

function saysInvalidSessionId(body: string): boolean {
  try {
    return (JSON.parse(body) as { value?: { error?: unknown } })?.value?.error === 'invalid session id';
  } catch {
    return false;
  }
}
