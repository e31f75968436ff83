/**
 * Answers to requests Node's HTTP parser refused before any handler saw them (a header section past Node's
 * limit, bytes that are not HTTP): a W3C error body with the status Node itself would send, where the
 * socket can still take one, instead of Node's bare 400/431 without a body.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebDriverError } from '../../core/errors';
import { writeRawError } from './raw-error-answer';

export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Reset by the client, or an answer already under way on this connection: nothing more can be said.
    const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
      socket.destroy();
      return;
    }
    writeRawError(socket, clientErrorAnswer(error.code));
  });
}

function clientErrorAnswer(code: string | undefined): WebDriverError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      // RFC 6585 §5.
      return new WebDriverError('invalid argument', 'the request’s header fields are too large', {
        status: 431,
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // Node's headersTimeout (servers/node/request-arrival.ts), with the same answer as a stalled body.
      return new WebDriverError(
        'timeout',
        'the request’s header section did not arrive in time (timeouts.request); the connection is closed',
        { status: 408 },
      );
    default:
      return new WebDriverError('invalid argument', 'the request is not valid HTTP/1.1', { status: 400 });
  }
}
