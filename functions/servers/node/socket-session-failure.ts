/**
 * What a WebSocket's client is told when its socket cannot be opened (a socket session's, a WebDriver session's
 * BiDi, CDP or VNC socket), and what the grid's log is told.
 * The client gets a W3C error that says what failed, never what only concerns this machine: a program's output
 * (the Playwright server's, a helper's in a browser's namespace), a stack, a path of the grid's files. Those go
 * to the log with the session (STYLE: internal errors never exposed to clients).
 */
import { WebDriverError } from '../../core/errors';
import type { Logger } from '../../core/ports';

/** What the log says of the failed session: the socket's path, and the session once it was made. */
export interface SocketSessionFacts {
  path: string;
  session?: string;
  pool?: string;
}

/** The facts of the session once it is known: its key and pool. */
export function sessionFacts(session: {
  key: string;
  pool: string;
}): Pick<SocketSessionFacts, 'session' | 'pool'> {
  return { session: session.key, pool: session.pool };
}

/**
 * The error for the client. A WebDriverError is gridgate's own answer and goes as it is; its cause, if any, is
 * what it leaves out, logged. Anything else is a failure gridgate did not expect: logged, and answered with a
 * generic `unknown error`.
 */
export function clientFacingFailure(
  error: unknown,
  logger: Logger,
  facts: SocketSessionFacts,
): WebDriverError {
  if (error instanceof WebDriverError) {
    if (error.cause !== undefined) {
      logger.log('REQUEST_FAILED', {
        ...facts,
        error: error.message,
        cause: String(error.cause),
        ...stackOf(error.cause),
      });
    }
    return error;
  }
  logger.log('REQUEST_FAILED', { ...facts, error: String(error), ...stackOf(error) });
  return new WebDriverError(
    'unknown error',
    'gridgate failed to open this session’s socket; its log says why',
  );
}

function stackOf(error: unknown): { stack?: string } {
  return error instanceof Error && error.stack ? { stack: error.stack } : {};
}
