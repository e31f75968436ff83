/**
 * WebSockets that are sessions of their own (core/socket-session-request.ts): a CDP client's (Puppeteer's
 * `connect`, Playwright's `connectOverCDP`) and a Playwright client's (`browserType.connect`). Each is a
 * WebDriver session made through the grid's own front door (grid-session-calls.ts), so users, quotas, the
 * queue, colours, recording, the status page, idle and max age are a WebDriver session's; the socket's
 * life is the session's: closing either side ends it. On a local pool a CDP client is relayed to the
 * browser's DevTools socket through the session's CDP check, and a Playwright client to a Playwright server
 * of its own version attached to the session's browser through that same check (pools/local/playwright/).
 */
import { mkdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { sessionNotCreated, WebDriverError } from '../../core/errors';
import { type GridDeps, sessionPool } from '../../core/grid-deps';
import type { SessionClaims } from '../../core/session-token';
import { SocketCommandCheck } from '../../core/socket-command-check';
import type { SocketSessionRequest } from '../../core/socket-session-request';
import { basicCredentials, requestUser } from '../../http/request-user';
import { startAttachedPlaywrightServer } from '../../pools/local/playwright/attached-playwright-server';
import type { PlaywrightPackages } from '../../pools/local/playwright/playwright-packages';
import { sessionDirectoryOf } from '../../pools/local/session-directories';
import { sessionFolderContext } from '../../pools/local/session-folder-bounds';
import type { GridSessionCalls } from './grid-session-calls';
import { browserDevtoolsUrl, openUpstream, relay, type Upstream } from './socket-relay';

export interface SocketSessionContext {
  deps: GridDeps;
  calls: GridSessionCalls;
  packages: PlaywrightPackages;
  /** The process whose launcher made the sessions' folders (see WebSocketProxyOptions.sessionOwner). */
  sessionOwner?: number;
}

/** Client headers Playwright's server reads (its version check, the browser asked). */
const PLAYWRIGHT_HEADERS = ['user-agent', 'x-playwright-browser'];

/**
 * Makes the session, then opens what the client's socket is relayed to. `clientGone` aborts when the client's
 * connection closes: waiting in the queue and starting stop, and a session made meanwhile ends.
 */
export async function connectSocketSession(
  req: IncomingMessage,
  url: URL,
  asked: SocketSessionRequest,
  context: SocketSessionContext,
  clientGone: AbortSignal,
): Promise<Upstream> {
  const { deps, calls } = context;
  const authorization = authorizationOf(req, url);
  // Refused before anything waits: a wrong password is 401 at once, as for POST /session.
  const user = await requestUser(deps, authorization, req.socket.remoteAddress);
  const colorHeader = req.headers[deps.config.colors.header.toLowerCase()];
  const headers: Record<string, string> = {
    ...(authorization ? { authorization } : {}),
    ...(typeof colorHeader === 'string' ? { [deps.config.colors.header]: colorHeader } : {}),
  };
  // The client's Playwright before any slot or browser: a version that cannot be had is refused as such.
  const playwrightCore =
    asked.protocol === 'playwright' ? await context.packages.folderFor(asked.playwrightVersion) : undefined;
  const created = await calls.create({ capabilities: asked.capabilities, headers, signal: clientGone });
  const cleanups: (() => Promise<unknown>)[] = [() => calls.end(created.sessionId, authorization)];
  const end = once(() => Promise.allSettled(cleanups.reverse().map((cleanup) => cleanup())));
  try {
    const check = deps.tokens.verify(created.sessionId, user);
    if (!check.ok) throw new WebDriverError('unknown error', 'the grid answered a session ID it cannot read');
    const { claims } = check;
    if (sessionPool(deps, claims)?.kind !== 'local' || !claims.devtools) {
      throw sessionNotCreated(
        `the session's pool (${claims.pool}) cannot serve ${asked.protocol === 'cdp' ? 'CDP' : 'Playwright'} clients: only local pools do`,
      );
    }
    const touch = () => deps.sessions.touch(claims.key, deps.clock.now());
    const socket =
      playwrightCore === undefined
        ? await openUpstream(await browserDevtoolsUrl(claims.devtools), req)
        : await openPlaywright(req, { playwrightCore, claims, context, cleanups, signal: clientGone });
    if (clientGone.aborted) throw sessionNotCreated('the client went away');
    return {
      socket,
      onMessage: touch,
      // allSettled: the end never rejects, each cleanup's failure is its own to report.
      onClose: () => {
        end().then(
          () => {},
          () => {},
        );
      },
      ...(asked.protocol === 'cdp'
        ? { check: new SocketCommandCheck('cdp', sessionFolderContext(claims.handle, context.sessionOwner)) }
        : {}),
    };
  } catch (error) {
    await end();
    throw error;
  }
}

/**
 * The session's Playwright server: its checked DevTools socket in the session's folder, the server of the
 * client's major.minor attached to it, and the client's socket opened to that server.
 */
async function openPlaywright(
  req: IncomingMessage,
  {
    playwrightCore,
    claims,
    context,
    cleanups,
    signal,
  }: {
    playwrightCore: string;
    claims: SessionClaims;
    context: SocketSessionContext;
    cleanups: (() => Promise<unknown>)[];
    signal: AbortSignal;
  },
) {
  const folder = sessionDirectoryOf(claims.handle, context.sessionOwner);
  if (!folder) throw new WebDriverError('unknown error', 'the session has no folder');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const devtoolsSocket = join(folder, 'devtools.sock');
  const devtools = await checkedDevtoolsSocket(devtoolsSocket, claims, context);
  cleanups.push(
    () => closeServer(devtools),
    () => rm(devtoolsSocket, { force: true }),
  );
  const server = await startAttachedPlaywrightServer({ playwrightCore, devtoolsSocket, folder, signal });
  cleanups.push(server.stop);
  const headers = Object.fromEntries(
    PLAYWRIGHT_HEADERS.flatMap((name) => {
      const value = req.headers[name];
      return typeof value === 'string' ? [[name, value]] : [];
    }),
  );
  return openUpstream(server.wsEndpoint, req, undefined, { headers });
}

/**
 * The session browser's DevTools socket on a Unix socket only this machine's processes can open: each
 * connection relayed through the session's CDP check, as a CDP client's.
 */
async function checkedDevtoolsSocket(
  path: string,
  claims: SessionClaims,
  context: SocketSessionContext,
): Promise<Server> {
  const { WebSocketServer } = await import('ws');
  const server = createServer((_req, res) => res.writeHead(404).end());
  const sockets = new WebSocketServer({ server, perMessageDeflate: false, maxPayload: 0 });
  sockets.on('connection', (client, req) => {
    // Held until the browser's socket is open: Playwright speaks first, and a message before the relay
    // listens would be lost.
    client.pause();
    const check = new SocketCommandCheck('cdp', sessionFolderContext(claims.handle, context.sessionOwner));
    browserDevtoolsUrl(claims.devtools)
      .then((target) => openUpstream(target, req))
      .then((socket) => {
        relay(client, { socket, check });
        client.resume();
      })
      .catch(() => client.terminate());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return server;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * The client's credentials: Basic in the header (a URL's user:password@ becomes one in every WebSocket client),
 * or `?token=user:password` for clients that cannot set headers (Browserless's shape).
 */
function authorizationOf(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.authorization;
  if (header) return header;
  const token = url.searchParams.get('token');
  if (!token) return undefined;
  const basic = `Basic ${Buffer.from(token).toString('base64')}`;
  if (!basicCredentials(basic)?.user) throw new WebDriverError('invalid argument', 'token is user:password');
  return basic;
}

function once<T>(run: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= run();
    return result;
  };
}
