/**
 * WebSockets that are sessions of their own (core/socket-session-request.ts): a CDP client's (Puppeteer's
 * `connect`, Playwright's `connectOverCDP`) and a Playwright client's (`browserType.connect`). Each is a
 * WebDriver session made through the grid's own front door (grid-session-calls.ts), so users, quotas, the
 * queue, colours, recording, the status page, idle and max age are a WebDriver session's; the socket's
 * life is the session's: closing either side ends it. Whatever the pool, a CDP client is relayed to the
 * session's se:cdp at the grid's own front door (session-devtools.ts: a local browser's held to the session's
 * folder, as any se:cdp client's), and a Playwright client to a Playwright server of its own version attached
 * to that same socket (playwright/), with the client's network tunnel when it exposes its network
 * (playwright/exposed-network-tunnel.ts).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESSION_DIRECTORY_PREFIX } from '../../adapters/fs/session-folder-names';
import { sessionNotCreated, WebDriverError } from '../../core/errors';
import type { ExposedNetwork } from '../../core/exposed-network';
import { type GridDeps, runtimeOf, sessionPool } from '../../core/grid-deps';
import type { SessionClaims } from '../../core/session-token';
import type { SocketSessionRequest } from '../../core/socket-session-request';
import { sessionFacts } from '../../http/failure-log';
import { basicCredentials, requestUser } from '../../http/request-user';
import type { GridSessionCalls } from './grid-session-calls';
import { startAttachedPlaywrightServer } from './playwright/attached-playwright-server';
import { type ExposedNetworkTunnel, openExposedNetworkTunnel } from './playwright/exposed-network-tunnel';
import type { PlaywrightPackages } from './playwright/playwright-packages';
import { sessionDevtoolsUrl } from './session-devtools';
import { type ClientMessageCheck, openUpstream, relay, type Upstream } from './socket-relay';
import type { SocketSessionFacts } from './socket-session-failure';

export interface SocketSessionContext {
  deps: GridDeps;
  calls: GridSessionCalls;
  packages: PlaywrightPackages;
  /** The grid's pid, which marks its Playwright servers and their folders (WebSocketProxyOptions.gridPid). */
  gridPid: number;
}

/** Client headers Playwright's server reads (its version check, the browser asked). */
const PLAYWRIGHT_HEADERS = ['user-agent', 'x-playwright-browser'];

/**
 * Makes the session, then opens what the client's socket is relayed to. `clientGone` aborts when the client's
 * connection closes: waiting in the queue and starting stop, and a session made meanwhile ends. `facts` learns
 * the session once made, for the log of a failure (socket-session-failure.ts tells the client).
 */
export async function connectSocketSession(
  req: IncomingMessage,
  url: URL,
  asked: SocketSessionRequest,
  context: SocketSessionContext,
  clientGone: AbortSignal,
  facts: SocketSessionFacts,
): Promise<Upstream> {
  const { deps, calls } = context;
  const authorization = authorizationOf(req, url);
  // Refused before anything waits: a wrong password is 401 at once, as for POST /session.
  const user = await requestUser(deps, authorization, req.socket.remoteAddress);
  const colorHeader = req.headers[deps.config.colors.header.toLowerCase()];
  const host = addressedHost(req);
  const headers: Record<string, string> = {
    ...(authorization ? { authorization } : {}),
    ...(typeof colorHeader === 'string' ? { [deps.config.colors.header]: colorHeader } : {}),
    // The session is asked of this server's own address: the name the client used goes as a proxy's would,
    // for a colour in its subdomain (new-session.ts reads it so).
    ...(host ? { 'x-forwarded-host': host } : {}),
  };
  const cleanups: (() => Promise<unknown>)[] = [];
  const end = once(() => Promise.allSettled(cleanups.reverse().map((cleanup) => cleanup())));
  try {
    // The client's Playwright before any slot or browser: a version that cannot be had is refused as such.
    const playwrightCore =
      asked.protocol === 'playwright' ? await context.packages.folderFor(asked.playwrightVersion) : undefined;
    const created = await calls.create({ capabilities: asked.capabilities, headers, signal: clientGone });
    cleanups.push(() => calls.end(created.sessionId, authorization));
    const check = deps.tokens.verify(created.sessionId, user);
    if (!check.ok) throw new WebDriverError('unknown error', 'the grid answered a session ID it cannot read');
    const { claims } = check;
    Object.assign(facts, sessionFacts(claims));
    const devtools = sessionDevtoolsUrl(created, calls.origin(), {
      protocol: asked.protocol,
      pool: claims.pool,
    });
    const opened =
      playwrightCore === undefined
        ? { socket: await openUpstream(devtools, req, authorization) }
        : await openPlaywright(req, {
            playwrightCore,
            exposedNetwork: asked.exposedNetwork,
            devtools: { url: devtools, authorization },
            claims,
            context,
            cleanups,
            signal: clientGone,
          });
    if (clientGone.aborted) throw sessionNotCreated('the client went away');
    return {
      ...opened,
      // allSettled: the end never rejects, each cleanup's failure is its own to report. The session's
      // activity is counted by the se:cdp socket its traffic passes through.
      onClose: () => {
        end().then(
          () => {},
          () => {},
        );
      },
    };
  } catch (error) {
    await end();
    throw error;
  }
}

interface DevtoolsTarget {
  /** The session's se:cdp at the grid's own front door. */
  url: string;
  /** The client's credentials, which the front door asks of the session's sockets. */
  authorization: string | undefined;
}

/**
 * The session's Playwright server: a Unix socket in its folder relayed to the session's se:cdp, the server
 * of the client's major.minor attached to it, and the client's socket opened to that server; with the
 * client's network tunnel when it exposes its network.
 */
async function openPlaywright(
  req: IncomingMessage,
  {
    playwrightCore,
    exposedNetwork,
    devtools,
    claims,
    context,
    cleanups,
    signal,
  }: {
    playwrightCore: string;
    exposedNetwork: ExposedNetwork | undefined;
    devtools: DevtoolsTarget;
    claims: SessionClaims;
    context: SocketSessionContext;
    cleanups: (() => Promise<unknown>)[];
    signal: AbortSignal;
  },
): Promise<Pick<Upstream, 'socket' | 'check' | 'onOpen'>> {
  const exposed = exposedNetwork && (await exposeNetwork(exposedNetwork, claims, context));
  if (exposed) cleanups.push(exposed.close);
  const folder = await playwrightFolder(claims, context, cleanups);
  const devtoolsSocket = join(folder, 'devtools.sock');
  const relayed = await devtoolsSocketTo(devtoolsSocket, devtools, exposed?.contexts);
  cleanups.push(
    () => closeServer(relayed),
    () => rm(devtoolsSocket, { force: true }),
  );
  const server = await startAttachedPlaywrightServer({
    playwrightCore,
    devtoolsSocket,
    folder,
    launchedBy: context.gridPid,
    signal,
  });
  cleanups.push(server.stop);
  const headers = Object.fromEntries(
    PLAYWRIGHT_HEADERS.flatMap((name) => {
      const value = req.headers[name];
      return typeof value === 'string' ? [[name, value]] : [];
    }),
  );
  const socket = await openUpstream(server.wsEndpoint, req, undefined, { headers });
  return exposed
    ? { socket, check: exposed.tunnel, onOpen: (client) => exposed.tunnel.attach(client) }
    : { socket };
}

/**
 * The client's network tunnel, its proxy put where only the session's browser reaches it, by the browser's
 * kind (its runtime's `network`: a local browser's namespace). A browser elsewhere (a hub's, a container's, a
 * task's) has no such place gridgate can enter.
 */
async function exposeNetwork(
  network: ExposedNetwork,
  claims: SessionClaims,
  context: SocketSessionContext,
): Promise<ExposedNetworkTunnel> {
  const pool = sessionPool(context.deps, claims);
  const browsers = pool && runtimeOf(context.deps, pool)?.network;
  if (!browsers) {
    throw sessionNotCreated(
      `exposeNetwork is served for local pools' browsers; the pool ${claims.pool} runs its browsers elsewhere`,
    );
  }
  return openExposedNetworkTunnel(network, browsers, claims.handle).catch((error: unknown) => {
    const what = "exposeNetwork: the client's network could not be opened to the session's browser";
    throw sessionNotCreated(`${what}; the grid's log says why`, { cause: error });
  });
}

/**
 * Where the Playwright server keeps its profile and artifacts (its HOME and TMPDIR). A browser that shares
 * this machine's files (a local pool's) may write only in its session's folder, and Playwright names its
 * download folder in its TMPDIR: the session's folder, which goes with the session. A browser elsewhere writes
 * on its own machine: a folder of the server's own, named as session folders are so that the start-up sweep
 * removes it if this process dies first.
 */
async function playwrightFolder(
  claims: SessionClaims,
  context: SocketSessionContext,
  cleanups: (() => Promise<unknown>)[],
): Promise<string> {
  const pool = sessionPool(context.deps, claims);
  // Only a kind whose browsers share this machine's files bounds their paths (local pools).
  const sessionFolder = pool && runtimeOf(context.deps, pool)?.hostPaths?.folderOf(claims.handle);
  if (sessionFolder) {
    await mkdir(sessionFolder, { recursive: true, mode: 0o700 });
    return sessionFolder;
  }
  const folder = await mkdtemp(join(tmpdir(), `${SESSION_DIRECTORY_PREFIX}${context.gridPid}-playwright-`));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/**
 * A Unix socket only this machine's processes can open, each connection relayed to the session's se:cdp at
 * the front door (which holds a local browser's traffic to the session's folder, as any CDP client's), with
 * what the server sends the browser passed through `check` first when there is one.
 */
async function devtoolsSocketTo(
  path: string,
  target: DevtoolsTarget,
  check: ClientMessageCheck | undefined,
): Promise<Server> {
  const { WebSocketServer } = await import('ws');
  const server = createServer((_req, res) => res.writeHead(404).end());
  const sockets = new WebSocketServer({ server, perMessageDeflate: false, maxPayload: 0 });
  sockets.on('connection', (client, req) => {
    // Held until the browser's socket is open: Playwright speaks first, and a message before the relay
    // listens would be lost.
    client.pause();
    openUpstream(target.url, req, target.authorization)
      .then((socket) => {
        relay(client, { socket, ...(check ? { check } : {}) });
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

/** The host the client addressed: what a proxy in front was asked, else its Host header. */
function addressedHost(req: IncomingMessage): string | undefined {
  const forwarded = [req.headers['x-forwarded-host'] ?? []].flat()[0]?.split(',')[0]?.trim();
  return forwarded || req.headers.host || undefined;
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
