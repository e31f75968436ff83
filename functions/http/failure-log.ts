/**
 * What the grid's log keeps of a failed request whose client is answered with a W3C error: the error, the
 * cause the client is not told (an upstream's address, a program's output, a stack) and, where known, the
 * session and pool. Every answering edge logs through here: the app's, the Node command path's, WebSockets'
 * (STYLE: internal errors never exposed to clients).
 */
import { WebDriverError } from '../core/errors';
import type { Logger } from '../core/ports';

/** What the log says of the failed request: its path (and method), and the session once it is known. */
export interface FailureFacts {
  method?: string;
  path: string;
  session?: string;
  pool?: string;
}

/** The facts of a session: its key and pool. */
export function sessionFacts(session: { key: string; pool: string }): Pick<FailureFacts, 'session' | 'pool'> {
  return { session: session.key, pool: session.pool };
}

/**
 * Logs REQUEST_FAILED for a failure the client gets no detail of: gridgate's own error with a cause (the cause
 * is what its message leaves out), or an error gridgate did not expect. gridgate's own error without a cause
 * already told the client everything: nothing to log.
 */
export function logFailure(logger: Logger, facts: FailureFacts, error: unknown): void {
  if (error instanceof WebDriverError) {
    if (error.cause === undefined) return;
    logger.log('REQUEST_FAILED', {
      ...facts,
      ...(error.session && sessionFacts(error.session)),
      error: error.message,
      cause: String(error.cause),
      ...stackOf(error.cause),
    });
    return;
  }
  logger.log('REQUEST_FAILED', { ...facts, error: String(error), ...stackOf(error) });
}

function stackOf(error: unknown): { stack?: string } {
  return error instanceof Error && error.stack ? { stack: error.stack } : {};
}
