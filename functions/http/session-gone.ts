/** What to tell a client whose browser cannot be reached: why the session is gone, when we know. */

import { describeEnd } from '../core/ended-sessions';
import { invalidSessionId, type WebDriverError } from '../core/errors';
import type { GridDeps } from '../core/grid-deps';
import type { Reclaim } from '../core/ports';
import type { SessionClaims } from '../core/session-token';
import { endSession } from '../use-cases/end-session';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'EHOSTUNREACH',
  // A task whose ENI is gone (Fargate Spot took it back) drops packets: connecting times out.
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: string; cause?: { code?: string } })?.code;
  const causeCode = (error as { cause?: { code?: string } })?.cause?.code;
  return UNREACHABLE.has(code ?? '') || UNREACHABLE.has(causeCode ?? '');
}

/**
 * The session's browser is unreachable: end the session if it still counts as running, and say why.
 * Only this error path asks the store whether the platform reclaimed the browser, never the command path.
 */
export async function sessionGone(deps: GridDeps, claims: SessionClaims): Promise<WebDriverError> {
  const [record, reclaim] = await Promise.all([
    deps.sessions.get(claims.key),
    deps.sessions.reclaimed(claims.handle),
  ]);
  if (record && record.endReason === undefined) {
    await endSession(deps, claims, reclaim ? 'reclaimed' : 'browser exited');
  }
  const why = reclaim
    ? describeReclaim(reclaim)
    : describeEnd(record && { ...record, reason: record.endReason });
  return invalidSessionId(`session ended: ${why}`);
}

function describeReclaim(reclaim: Reclaim): string {
  const when = new Date(reclaim.at).toISOString();
  const spot = reclaim.reason === 'SpotInterruption' || reclaim.reason === 'TerminationNotice';
  return spot
    ? `the browser was reclaimed by Fargate Spot at ${when} (${reclaim.reason})`
    : `the browser was stopped by its platform at ${when} (${reclaim.reason})`;
}
