/**
 * A hub that refuses a WebSocket upgrade is a gateway failing: 502 with a W3C body, not `invalid session id`
 * for a session the hub may still run (the client would drop a live session). So is one that cannot be
 * reached, whose address stays in the grid's log.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApp } from '../../functions/http/create-app';
import { attachWebSocketProxy } from '../../functions/servers/node/websocket-proxy';
import { type FakeGrid, newSession, startFakeGrid } from '../support/fake-grid';
import { jsonAnswer } from '../support/fakes';
import { upgradeOutcome } from '../support/websocket-upgrade';

let hub: Server;
let grid: FakeGrid;
let server: Server;
const upgrades: string[] = [];

beforeEach(async () => {
  upgrades.length = 0;
  // A hub that serves new sessions and refuses every WebSocket with 403, as a proxy in front of one may.
  hub = createServer((req, res) => {
    const answer = jsonAnswer(200, { value: { sessionId: 'hub-session-1', capabilities: {} } });
    req.resume().on('end', () => res.writeHead(answer.status, answer.headers ?? {}).end(answer.body));
  });
  hub.on('upgrade', (req, socket) => {
    upgrades.push(req.url ?? '');
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
  const hubAddress = `127.0.0.1:${(hub.address() as AddressInfo).port}`;
  grid = startFakeGrid({
    config: {
      browsers: { chrome: { versions: { '156.0': { pools: ['hub'] } } } },
      pools: { hub: { kind: 'hub', url: `http://${hubAddress}/wd/hub` } },
    },
  });
  const app = createApp(grid.deps, { agent: grid.agent });
  server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
      resolve(started as Server),
    );
  });
  attachWebSocketProxy(server, grid.deps);
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await grid.close();
  hub.closeAllConnections();
  await new Promise((resolve) => hub.close(resolve));
});

describe('a hub refusing a WebSocket', () => {
  it.each(['/session/{id}/se/bidi', '/devtools/{id}/page'])(
    'answers 502 with a W3C body at %s',
    async (path) => {
      const id = await newSession(grid);
      const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const outcome = await upgradeOutcome(new WebSocket(`${base}${path.replace('{id}', id)}`));
      expect(outcome).toMatchObject({ status: 502 });
      const { body, headers } = outcome as { body: string; headers: Record<string, string> };
      expect(headers['content-type']).toBe('application/json; charset=utf-8');
      const { value } = JSON.parse(body) as { value: Record<string, string> };
      expect(Object.keys(value).sort()).toEqual(['error', 'message', 'stacktrace']);
      expect(value).toMatchObject({ error: 'unknown error', message: 'the hub refused the WebSocket (403)' });
      expect(upgrades).toHaveLength(1);
    },
  );
});

describe('a hub that cannot be reached', () => {
  it.each(['/session/{id}/se/bidi', '/devtools/{id}/page'])(
    'answers 502 at %s without its address, which the log keeps',
    async (path) => {
      const id = await newSession(grid);
      const { port } = hub.address() as AddressInfo;
      hub.closeAllConnections();
      await new Promise((resolve) => hub.close(resolve));
      const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const outcome = await upgradeOutcome(new WebSocket(`${base}${path.replace('{id}', id)}`));
      expect(outcome).toMatchObject({ status: 502 });
      const { value } = JSON.parse((outcome as { body: string }).body) as { value: Record<string, string> };
      expect(value).toEqual({
        error: 'unknown error',
        message: 'the hub cannot be reached; the grid’s log says why',
        stacktrace: '',
      });
      expect(grid.logger.fieldsOf('REQUEST_FAILED')).toEqual([
        expect.objectContaining({ pool: 'hub', cause: expect.stringContaining(`127.0.0.1:${port}`) }),
      ]);
    },
  );
});
