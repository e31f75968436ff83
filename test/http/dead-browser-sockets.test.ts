/**
 * A WebDriver session's BiDi, CDP and VNC sockets in front of a browser that died: the client is told so in a
 * W3C body that names nothing of the grid's network (the browser's address is the grid's business), and the
 * grid's log keeps the cause with the session and its pool.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApp } from '../../functions/http/create-app';
import { attachWebSocketProxy } from '../../functions/servers/node/websocket-proxy';
import { type FakeGrid, fakeGridPerTest, newSession } from '../support/fake-grid';
import { type Cleanups, closeServer, session, vncGrid } from '../support/fake-novnc';
import { ALICE } from '../support/page-users';
import { freePort } from '../support/processes';
import { upgradeOutcome } from '../support/websocket-upgrade';

const startGrid = fakeGridPerTest();
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The grid's app on a real Node server with its upgrade path, as the Node server serves both. */
async function served(grid: FakeGrid): Promise<string> {
  const app = createApp(grid.deps, { agent: grid.agent });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  attachWebSocketProxy(server, grid.deps);
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', resolve)));
  cleanups.push(() => closeServer(server));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The refusal of an upgrade, failing the test if the socket opened. */
async function refusal(socket: WebSocket): Promise<{ status: number; value: Record<string, string> }> {
  cleanups.push(() => socket.terminate());
  const outcome = await upgradeOutcome(socket);
  if ('socket' in outcome) throw new Error('the socket opened to a dead browser');
  expect(outcome.headers['content-type']).toBe('application/json; charset=utf-8');
  const { value } = JSON.parse(outcome.body) as { value: Record<string, string> };
  expect(Object.keys(value).sort()).toEqual(['error', 'message', 'stacktrace']);
  return { status: outcome.status, value };
}

/** What the client must never read: the dead browser's host and port, or the socket error naming them. */
function expectNothingOfTheNetwork(message: string, port: number): void {
  expect(message).not.toContain('127.0.0.1');
  expect(message).not.toContain(String(port));
  expect(message).not.toMatch(/ECONNREFUSED/);
}

describe('a session socket whose browser died', () => {
  it.each(['/se/bidi', '/se/cdp'])('tells the client of %s plainly and logs the cause', async (rest) => {
    const grid = startGrid();
    // The browser's DevTools are at its own address, as a local Chromium's are at its debugger port.
    grid.deps.runtimes.local = {
      launcher: grid.launcher,
      devtools: { devtools: (handle) => grid.launcher.upstream(handle).address },
    };
    const base = await served(grid);
    const id = await newSession(grid);
    const browser = grid.launcher.upstream();
    const port = Number(browser.address.split(':')[1]);
    await browser.close();

    const { status, value } = await refusal(new WebSocket(`${base}/session/${id}${rest}`));
    expect(status).toBe(502);
    expect(value).toMatchObject({
      error: 'unknown error',
      message: 'the browser cannot be reached; the grid’s log says why',
    });
    expectNothingOfTheNetwork(value.message as string, port);
    const [running] = await grid.sessions.running();
    expect(grid.logger.fieldsOf('REQUEST_FAILED')).toEqual([
      expect.objectContaining({
        path: `/session/${id}${rest}`,
        session: running?.key,
        pool: 'local',
        cause: expect.stringContaining(`ECONNREFUSED 127.0.0.1:${port}`),
      }),
    ]);
  });

  it('tells the VNC viewer plainly and logs the cause', async () => {
    // Nothing listens on the session's noVNC port: its browser's machine is gone.
    const port = await freePort();
    const { grid, port: gridPort } = await vncGrid(cleanups, port);
    const key = await session(grid);
    const socket = new WebSocket(`ws://127.0.0.1:${gridPort}/ui/api/sessions/${key}/vnc/websockify`, {
      headers: { origin: `http://127.0.0.1:${gridPort}`, ...ALICE },
    });

    const { status, value } = await refusal(socket);
    expect(status).toBe(502);
    expect(value.message).toBe('the browser cannot be reached; the grid’s log says why');
    expectNothingOfTheNetwork(value.message as string, port);
    expect(grid.logger.fieldsOf('REQUEST_FAILED')).toEqual([
      expect.objectContaining({
        session: key,
        pool: 'fargate',
        cause: expect.stringContaining(`ECONNREFUSED 127.0.0.1:${port}`),
      }),
    ]);
  });
});
