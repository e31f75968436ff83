/**
 * What a WebSocket's client is told when its socket cannot be opened (a socket session's, a WebDriver session's
 * BiDi, CDP or VNC socket), and what the grid's log is told.
 * The client gets a W3C error that says what failed, never what only concerns this machine: a program's output
 * (the Playwright server's, a helper's in a browser's namespace), a stack, a path of the grid's files. Those go
 * to the log with the session (STYLE: internal errors never exposed to clients).
 */
import { WebDriverError } from '../../core/errors';
import type { Logger } from '../../core/ports';
import { type FailureFacts, logFailure } from '../../http/failure-log';

/** What the log says of the failed session: the socket's path, and the session once it was made. */
export type SocketSessionFacts = Omit<FailureFacts, 'method'>;

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
  logFailure(logger, facts, error);
  if (error instanceof WebDriverError) return error;
  return new WebDriverError(
    'unknown error',
    'gridgate failed to open this session’s socket; its log says why',
  );
}
