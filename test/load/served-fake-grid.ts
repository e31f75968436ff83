/**
 * The whole app with fake browsers (startFakeGrid) behind a real Node HTTP server on 127.0.0.1, served
 * as the Node entry serves it (@hono/node-server, the command fast path), so that sockets really
 * close, stall and reset; plus the checks every load and fault test ends with.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { expect } from 'vitest';
import { type FakeGrid, type FakeGridOptions, startFakeGrid } from '../support/fake-grid';
import { eventually as eventuallyWithin } from '../support/until';

export interface ServedFakeGrid extends FakeGrid {
  /** http://127.0.0.1:PORT */
  origin: string;
  server: Server;
}

export async function serveFakeGrid(options: FakeGridOptions = {}): Promise<ServedFakeGrid> {
  const grid = startFakeGrid(options);
  const server = await new Promise<Server>((resolve, reject) => {
    const started = serve({ fetch: grid.app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
      resolve(started as Server),
    );
    started.once('error', reject);
  });
  // As start-grid.ts sets it: a new session may take as long as the config allows.
  server.requestTimeout = 0;
  const { port } = server.address() as AddressInfo;
  return {
    ...grid,
    origin: `http://127.0.0.1:${port}`,
    server,
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
      await grid.close();
    },
  };
}

/**
 * support/until's wait for a check, bounded to 5 s unless told: the load tests look for what a fault left
 * behind, and a longer wait would let an idle sweep tidy it up and hide it.
 */
export function eventually(check: () => void | Promise<void>, ms = 5000): Promise<void> {
  return eventuallyWithin(check, ms);
}

/** Every slot back, nothing queued, no session running, every browser started was stopped. */
export async function expectNothingLeft(grid: FakeGrid): Promise<void> {
  await eventually(async () => {
    expect(await grid.sessions.inUse()).toEqual({});
    expect(await grid.sessions.inUseByUser()).toEqual({});
    expect(await grid.sessions.running()).toEqual([]);
    expect(grid.deps.queue.lengths().waiting).toBe(0);
    expect([...grid.launcher.stops].sort()).toEqual(
      grid.launcher.started.map((entry) => entry.handle).sort(),
    );
    expect(grid.launcher.started.every((entry) => entry.upstream.isClosed)).toBe(true);
  });
}
