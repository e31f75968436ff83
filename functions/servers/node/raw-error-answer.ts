/**
 * A W3C error written straight onto a socket, for the answers Node gives outside any request handler: a
 * refused WebSocket upgrade, a request the HTTP parser could not read. The connection closes after it.
 */
import type { Duplex } from 'node:stream';
import { WebDriverError } from '../../core/errors';
import { WEBDRIVER_HEADERS } from '../../http/webdriver-json';

export function writeRawError(socket: Duplex, wire: WebDriverError): void {
  const body = JSON.stringify(wire.toBody());
  const headers = Object.entries({ ...WEBDRIVER_HEADERS, ...wire.headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${wire.status} ${wire.code}\r\n${headers}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** An error that is not a WebDriverError, as the 502 of an upstream that could not be reached. */
export function asUpstreamError(error: unknown): WebDriverError {
  return error instanceof WebDriverError
    ? error
    : new WebDriverError('unknown error', `cannot reach the browser: ${(error as Error).message}`, {
        status: 502,
      });
}
