/**
 * The Node server's upgrade path: only `Upgrade: websocket` is a WebSocket; a request offering h2c (as
 * Selenium's Java client does with every request on a new connection) is served as plain HTTP.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/http/create-app';
import { attachWebSocketProxy } from '../../functions/servers/node/websocket-proxy';
import { type FakeGrid, startFakeGrid } from '../support/fake-grid';
import { exchange } from '../support/raw-exchange';

let grid: FakeGrid;
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await grid.close();
});

/** The fake grid's app as the Node server serves it, WebSocket proxy included. */
async function listen(): Promise<number> {
  grid = startFakeGrid();
  const app = createApp(grid.deps, { agent: grid.agent });
  server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
      resolve(started as Server),
    );
  });
  attachWebSocketProxy(server, grid.deps);
  return (server.address() as AddressInfo).port;
}

// What java.net.http sends on a new connection (Selenium 4.48's Java client).
const H2C_OFFER =
  'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAEAAEAAAAIAAAABAAMAAABkAAQBAAAAAAUAAEAA\r\n';

describe('requests offering an upgrade that is not WebSocket', () => {
  it('creates a session, then serves the next request on the same connection', async () => {
    const port = await listen();
    const body = JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } });
    const answer = await exchange(
      port,
      `POST /session HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${H2C_OFFER}` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}` +
        `GET /status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    );
    const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]);
    expect(statuses, answer).toEqual(['200', '200']);
    expect(answer).toMatch(/"sessionId":"[A-Za-z0-9_-]{60,}"/);
    expect(answer).toContain('"ready":');
    expect(grid.launcher.started).toHaveLength(1);
  });

  it('keeps what the client said of the connection itself', async () => {
    const port = await listen();
    const answer = await exchange(
      port,
      `GET /status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close, Upgrade\r\nUpgrade: h2c\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer.toLowerCase()).toContain('connection: close');
  });

  it('still treats Upgrade: websocket as a WebSocket', async () => {
    const port = await listen();
    const answer = await exchange(
      port,
      `GET /session HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: WebSocket\r\n` +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 404/);
    expect(answer).toContain('no WebSocket endpoint at /session');
  });
});
