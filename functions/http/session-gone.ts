/** What to tell a client whose browser cannot be reached: why the session is gone, when we know. */
import { formatDuration } from '../core/duration';
import { endSession } from '../core/end-session';
import { invalidSessionId, type WebDriverError } from '../core/errors';
import type { GridDeps } from '../core/grid-deps';
import type { SessionRecord } from '../core/ports';
import type { SessionClaims } from '../core/session-token';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'EHOSTUNREACH',
]);

export function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: string; cause?: { code?: string } })?.code;
  const causeCode = (error as { cause?: { code?: string } })?.cause?.code;
  return UNREACHABLE.has(code ?? '') || UNREACHABLE.has(causeCode ?? '');
}

/** The session's browser is unreachable: end the session if it still counts as running, and say why. */
export async function sessionGone(deps: GridDeps, claims: SessionClaims): Promise<WebDriverError> {
  const record = await deps.sessions.get(claims.key);
  if (record && record.endReason === undefined) await endSession(deps, claims, 'browser exited');
  return invalidSessionId(`session ended: ${describeEnd(record)}`);
}

function describeEnd(record: SessionRecord | undefined): string {
  switch (record?.endReason) {
    case 'deleted':
      return 'it was deleted';
    case 'idle timeout':
      return `no command for ${formatDuration(record.idleTimeoutMs)} (idle timeout)`;
    case 'max age':
      return `it reached its maximum age of ${formatDuration(record.maxAgeMs)}`;
    case 'server shutdown':
      return 'the grid shut down';
    default:
      return 'the browser exited or crashed';
  }
}
