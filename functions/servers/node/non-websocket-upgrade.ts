/**
 * Requests that name an Upgrade other than WebSocket, served as the plain HTTP requests they also are.
 * Selenium's Java client (java.net.http) sends `Connection: Upgrade, HTTP2-Settings` and `Upgrade: h2c`
 * with every request on a new connection; a server may ignore that offer (RFC 9110 §7.8, RFC 7540 §3.2),
 * but Node hands every request with an Upgrade header to the `upgrade` listener once there is one. So the
 * request is written back onto its socket without the offer and the socket given to the HTTP server again.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** Headers that only make the offer (RFC 7540 §3.2.1), dropped with it. */
const OFFER_HEADERS = new Set(['upgrade', 'http2-settings']);

/** Whether the request asks for a WebSocket (RFC 6455 §4.1: `Upgrade: websocket`, any case). */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '')
    .split(',')
    .some((protocol) => protocol.trim().toLowerCase() === 'websocket');
}

/** Puts the request back on its socket, minus the upgrade offer, for the server's HTTP parser to serve. */
export function serveAsHttp(server: Server, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const value = req.rawHeaders[i + 1] as string;
    const lower = name.toLowerCase();
    if (OFFER_HEADERS.has(lower)) continue;
    if (lower === 'connection') {
      // Keep what the client said of the connection itself (keep-alive, close), not the offer's tokens.
      const kept = value.split(',').filter((token) => !OFFER_HEADERS.has(token.trim().toLowerCase()));
      if (kept.length > 0) lines.push(`${name}: ${kept.join(',').trim()}`);
      continue;
    }
    lines.push(`${name}: ${value}`);
  }
  // Header bytes came in as latin1 (Node's parser) and go back as they were.
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  server.emit('connection', socket);
}
