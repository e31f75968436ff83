/**
 * For tests of the status page's VNC view: docker-selenium's noVNC as a browser's machine serves it (a
 * page, its files, websockify echoing) on 127.0.0.1, and the status page's routes on a real Node server
 * with the upgrade path attached, in front of the fake grid with an ecs pool whose noVNC is that fake.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { WebSocketServer } from 'ws';
import { WebDriverError } from '../../functions/core/errors';
import type { SessionRecord } from '../../functions/core/ports';
import { requestUser } from '../../functions/http/request-user';
import { registerUiRoutes } from '../../functions/http/ui/ui-routes';
import { webDriverJson } from '../../functions/http/webdriver-json';
import { attachWebSocketProxy } from '../../functions/servers/node/websocket-proxy';
import { type FakeGrid, startFakeGrid } from './fake-grid';
import { openPageUsers } from './page-users';

/** Things to close after each test, last made first closed. */
export type Cleanups = (() => unknown)[];

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** docker-selenium's noVNC as the browser's machine serves it: its page and files, and websockify echoing. */
export async function fakeNoVnc(cleanups: Cleanups, page = '<title>noVNC</title>') {
  const requests: string[] = [];
  const upgrades: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const path = (req.url ?? '').split('?')[0];
    if (path === '/vnc.html') {
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'tracked=1' }).end(page);
    } else if (path === '/app/ui.js') {
      res.writeHead(200, { 'content-type': 'application/javascript' }).end('export default {};');
    } else res.writeHead(404).end();
  });
  const sockets = new WebSocketServer({
    server,
    path: '/websockify',
    handleProtocols: (protocols) => (protocols.has('binary') ? 'binary' : false),
  });
  sockets.on('connection', (socket, req) => {
    upgrades.push(req.headers);
    socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    await closeServer(server);
  });
  return { port: (server.address() as AddressInfo).port, requests, upgrades };
}

export interface VncGrid {
  grid: FakeGrid;
  /** The status page's routes as the app serves them: the grid's auth first, W3C errors out. */
  app: Hono<{ Variables: { user: string } }>;
  /** The Node server's port, with the upgrade path (node/websocket-proxy.ts) attached. */
  port: number;
}

/**
 * Pools "fargate" (ecs, noVNC on the fake's port), "quiet" (ecs, vncPort false) and "local"; alice, bob and
 * root (an admin) sign in. `webSockets`: whether the server is one that carries WebSockets (Node, not Lambda).
 */
export async function vncGrid(
  cleanups: Cleanups,
  vncPort: number,
  options: { webSockets?: boolean; users?: boolean } = {},
): Promise<VncGrid> {
  const webSockets = options.webSockets ?? true;
  const users = openPageUsers();
  const grid = startFakeGrid({
    config: {
      ...(options.users === false ? {} : { usersFile: users.file }),
      admins: ['root'],
      browsers: { chrome: { versions: { '156': { pools: ['fargate', 'quiet', 'local'] } } } },
      pools: {
        local: { kind: 'local', maxSessions: 2 },
        fargate: { kind: 'ecs', maxSessions: 2, networks: ['127.0.0.0/8'], vncPort },
        quiet: { kind: 'ecs', maxSessions: 2, networks: ['127.0.0.0/8'], vncPort: false },
      },
    },
    users: options.users === false ? undefined : users.directory,
  });
  const app = new Hono<{ Variables: { user: string } }>();
  app.use(async (c, next) => {
    c.set('user', await requestUser(grid.deps, c.req.header('authorization'), undefined));
    await next();
  });
  registerUiRoutes(app, grid.deps, {
    admins: () => grid.deps.config.admins,
    agent: grid.agent,
    startedAt: 0,
    webSockets,
  });
  app.onError((error, c) =>
    error instanceof WebDriverError
      ? webDriverJson(c, error.toBody(), error.status as 500, error.headers)
      : webDriverJson(c, { value: { error: 'unknown error', message: String(error), stacktrace: '' } }, 500),
  );
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  attachWebSocketProxy(server, grid.deps);
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', resolve)));
  cleanups.push(
    () => grid.close(),
    () => users.close(),
    () => closeServer(server),
  );
  return { grid, app, port: (server.address() as AddressInfo).port };
}

/** A running session recorded as new-session records it, in `pool`, its browser at `address`. */
export async function session(grid: FakeGrid, overrides: Partial<SessionRecord> = {}): Promise<string> {
  const key = overrides.key ?? 'a1b2c3d4e5f60718';
  const now = grid.clock.now();
  await grid.sessions.add({
    key,
    user: 'alice',
    pool: 'fargate',
    browserName: 'chrome',
    browserVersion: '156',
    address: '127.0.0.1:4444',
    handle: 'arn:aws:ecs:us-east-1:123456789012:task/grid/0123',
    upstreamId: 'upstream-1',
    createdAt: now,
    lastActivityAt: now,
    idleTimeoutMs: 300_000,
    maxAgeMs: 3_600_000,
    ...overrides,
  });
  return key;
}
