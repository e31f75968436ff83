/**
 * How long the Node server waits for a client to send its request (`timeouts.request`): its header
 * section must be in within that time (Node's headersTimeout), and its body may go that long without a
 * byte; then the client hears 408 `timeout` and the connection closes. Without it a connection that
 * stops sending mid-body stays open for good (50 of them were still open after 75 s), each holding a
 * request handler and a socket. The body is timed by silence, not in total, as nginx's
 * client_body_timeout: a 64 MB upload over a slow link that keeps sending is never cut.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import { formatDuration } from '../../core/duration';
import { WebDriverError } from '../../core/errors';
import type { Logger } from '../../core/ports';
import { errorAnswer } from '../../http/error-answer';
import { WEBDRIVER_HEADERS } from '../../http/webdriver-json';

/** How often bodies in flight are looked at, and Node checks header sections: a stall ends within this past the limit. */
export const ARRIVAL_CHECK_MS = 1000;

/**
 * The server's own options, given to createServer: Node checks header sections every 30 s by default,
 * which would let a stalled one live half a minute past the limit. `requestTimeout` (Node's limit on a
 * whole request, 300 s by default) is off: a total time is what a slow upload that keeps sending would hit.
 */
export function requestArrivalOptions(limitMs: number): ServerOptions {
  return { connectionsCheckingInterval: ARRIVAL_CHECK_MS, headersTimeout: limitMs, requestTimeout: 0 };
}

/** A request whose body is still arriving, and when the last of it came. */
interface BodyInFlight {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
  bytesRead: number;
  progressAt: number;
}

/**
 * Times the bodies of the server's requests (and keeps its headersTimeout at the limit, which a reload
 * may change): `limitMs` is read at every check.
 */
export function limitRequestArrival(server: Server, limitMs: () => number, logger: Logger): void {
  const inFlight = new Set<BodyInFlight>();
  server.on('request', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (!hasBody(incoming)) return;
    const body = { incoming, outgoing, bytesRead: incoming.socket.bytesRead, progressAt: Date.now() };
    inFlight.add(body);
    // Emitted once the body was read to its end (or thrown away after the answer), or the client left.
    incoming.once('close', () => inFlight.delete(body));
  });
  const checks = setInterval(() => {
    const limit = limitMs();
    server.headersTimeout = limit;
    const now = Date.now();
    for (const body of inFlight) {
      if (body.incoming.complete || body.incoming.socket.destroyed) inFlight.delete(body);
      else if (madeProgress(body)) body.progressAt = now;
      else if (now - body.progressAt >= limit) {
        inFlight.delete(body);
        endStalled(body, limit, logger);
      }
    }
  }, ARRIVAL_CHECK_MS);
  checks.unref();
  server.once('close', () => clearInterval(checks));
}

/** Whether the request says a body follows (RFC 9112 §6.3: a Content-Length above 0, or chunked). */
function hasBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length'];
  return incoming.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Whether bytes came since the last look, or gridgate has some it has not read yet: a handler that is
 * not reading (a password check first, a browser slow to take an upload) stops Node reading the socket,
 * and the client, held back by TCP, is then not the one that stalled.
 */
function madeProgress(body: BodyInFlight): boolean {
  const { bytesRead } = body.incoming.socket;
  const arrived = bytesRead !== body.bytesRead;
  body.bytesRead = bytesRead;
  return arrived || body.incoming.readableLength > 0;
}

/**
 * W3C's `timeout` ("an operation did not complete before its timeout expired") with HTTP's own status for
 * it, 408 Request Timeout (RFC 9110 §15.5.9: the server did not receive a complete request in the time it
 * was prepared to wait, and closes the connection), as gridgate gives 413 for a body that is too large:
 * the spec's 500 would say gridgate failed, not that the client's request never arrived whole. Once an
 * answer is under way there is nothing more to say: the connection just closes.
 */
function endStalled({ incoming, outgoing }: BodyInFlight, limitMs: number, logger: Logger): void {
  const path = (incoming.url ?? '/').split('?')[0] as string;
  logger.log('REQUEST_TIMED_OUT', { method: incoming.method, path, received: incoming.socket.bytesRead });
  if (outgoing.headersSent || outgoing.writableEnded) {
    incoming.socket.destroy();
    return;
  }
  const error = new WebDriverError(
    'timeout',
    `the request body sent no byte for ${formatDuration(limitMs)} (timeouts.request); the connection is closed`,
    { status: 408 },
  );
  const request = { method: incoming.method ?? 'POST', path, accept: incoming.headers.accept };
  const answer = errorAnswer(error, request, logger);
  const body = JSON.stringify(answer.body);
  outgoing.writeHead(answer.status, {
    ...WEBDRIVER_HEADERS,
    ...answer.headers,
    'Content-Length': Buffer.byteLength(body),
    // The rest of the body may still come: the connection cannot carry another request.
    Connection: 'close',
  });
  outgoing.end(body, () => incoming.socket.destroy());
}
