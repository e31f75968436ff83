/**
 * A W3C error written straight onto a socket, for the answers Node gives outside any request handler: a
 * refused WebSocket upgrade, a request the HTTP parser could not read. The connection closes after it.
 */
import type { Duplex } from 'node:stream';
import type { WebDriverError } from '../../core/errors';
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
