/**
 * WebSocket upgrades for BiDi (webSocketUrl) and CDP (se:cdp), proxied with `ws` after the same
 * session-ID check as every command; messages either way count as activity for the idle timeout. Also
 * the status page's live VNC view (noVNC's websockify socket), after the same checks as the session's
 * page; watching is not activity. And Selenoid's own sockets of hub sessions, `/devtools/{id}/…` and `/vnc/{id}`,
 * relayed to the hub as ggr relays them (core/selenoid-paths.ts). A local session's BiDi and CDP clients are
 * held to the session's folder (core/socket-command-check.ts): their browser runs on this machine. `ws` is
 * loaded by the first upgrade, not with the server: most clients never open a WebSocket.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { WebDriverError } from '../../core/errors';
import { type GridDeps, runtimeOf, sessionPool, traitsOf } from '../../core/grid-deps';
import { SocketCommandCheck } from '../../core/socket-command-check';
import {
  type SocketSessionRequest,
  socketSessionRequest,
  withCatalogBrowser,
} from '../../core/socket-session-request';
import { sessionFacts } from '../../http/failure-log';
import { sessionEndpoint } from '../../http/forward-command';
import { hubTarget, selenoidRequest } from '../../http/hub-passthrough';
import { requestUser } from '../../http/request-user';
import { visibleSession } from '../../http/ui/ui-data';
import { requireVncTarget } from '../../http/ui/ui-vnc';
import { verifySession } from '../../http/verify-session';
import { crossSiteRefusal, originPolicy, signalsOf } from '../../http/web-page-requests';
import { GridSessionCalls } from './grid-session-calls';
import { isWebSocketUpgrade, serveAsHttp } from './non-websocket-upgrade';
import { PlaywrightPackages } from './playwright/playwright-packages';
import { writeRawError } from './raw-error-answer';
import { browserDevtoolsUrl, openUpstream, relay, type Upstream } from './socket-relay';
import { clientFacingFailure, type SocketSessionFacts } from './socket-session-failure';
import { connectSocketSession, type SocketSessionContext } from './socket-sessions';

const SESSION_PATH = /^(?:\/wd\/hub)?\/session\/([A-Za-z0-9_-]+)(\/[^?]*)?$/;
// The status page's VNC view of a session (functions/http/ui/ui-routes.ts VNC_PREFIX).
const VNC_PATH = /^\/ui\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/vnc\/websockify$/;
// Selenoid's WebSocket paths (the rest of the path is checked by parseSelenoidPath).
const SELENOID_SOCKET = /^\/(?:devtools|vnc)\//;

export interface WebSocketProxyOptions {
  /** Browsers must name the grid by a name it knows (see AppOptions.knownHostsOnly); default true. */
  knownHostsOnly?: boolean;
  /** Where installed Playwright versions are kept (socket sessions); default in playwright-packages.ts. */
  playwrightCache?: string;
  /**
   * The pid of the grid's own process, which its Playwright servers are marked with so the start-up sweep
   * knows them as the grid's: the primary's in a server with workers; default this process's.
   */
  gridPid?: number;
}

export function attachWebSocketProxy(
  server: Server,
  deps: GridDeps,
  options: WebSocketProxyOptions = {},
): void {
  let clients: WebSocketServer | undefined;
  const socketSessions: Omit<SocketSessionContext, 'deps'> = {
    calls: new GridSessionCalls(() => ownOrigin(server)),
    packages: new PlaywrightPackages(options.playwrightCache),
    gridPid: options.gridPid ?? process.pid,
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!isWebSocketUpgrade(req)) return serveAsHttp(server, req, socket, head);
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://gridgate');
    // Filled in as the socket's session becomes known: what the log says of a failure to open it.
    const facts: SocketSessionFacts = { path: url.pathname };
    const refuse = (error: unknown) => writeRawError(socket, clientFacingFailure(error, deps.logger, facts));
    // A browser opens WebSockets to any site with the user's saved credentials and no CORS check
    // (cross-site WebSocket hijacking): another site's page must not reach a session's BiDi, CDP or VNC.
    const header = (name: string) => [req.headers[name] ?? []].flat()[0];
    const refusal = crossSiteRefusal(
      signalsOf(req.method ?? 'GET', url, header),
      originPolicy(deps.config, options.knownHostsOnly ?? true),
    );
    if (refusal) return refuse(refusal);
    let asked: SocketSessionRequest | undefined;
    try {
      asked = socketSessionRequest({ pathname: url.pathname, query: url.searchParams, header }, (name) =>
        isCatalogBrowser(deps, name),
      );
      if (asked) asked = withCatalogBrowser(asked, deps.config.browsers);
    } catch (error) {
      return refuse(error);
    }
    const clientGone = new AbortController();
    socket.once('close', () => clientGone.abort());
    // A session's socket may wait long in the queue: read meanwhile, or a client that leaves is never seen
    // (a paused socket learns of the end only when read). What it sends is kept for the upgrade.
    const early = asked ? readWhileWaiting(socket) : undefined;
    const vnc = VNC_PATH.exec(url.pathname);
    const connecting = asked
      ? connectSocketSession(req, url, asked, { deps, ...socketSessions }, clientGone.signal, facts)
      : vnc
        ? connectVnc(req, deps, vnc[1] as string, facts)
        : SELENOID_SOCKET.test(url.pathname)
          ? connectHub(req, url, deps, facts)
          : connect(req, url, deps, facts);
    Promise.all([connecting, import('ws')])
      .then(([upstream, { WebSocketServer }]) => {
        if (socket.destroyed) {
          upstream.onClose?.();
          return upstream.socket.terminate(); // the client gave up meanwhile
        }
        clients ??= new WebSocketServer({ noServer: true, perMessageDeflate: false });
        clients.handleUpgrade(req, socket, early ? early.stop(head) : head, (client) =>
          relay(client, upstream),
        );
      })
      .catch(refuse);
  });
}

async function connect(
  req: IncomingMessage,
  url: URL,
  deps: GridDeps,
  facts: SocketSessionFacts,
): Promise<Upstream> {
  const match = SESSION_PATH.exec(url.pathname);
  if (!match) throw new WebDriverError('unknown command', `no WebSocket endpoint at ${url.pathname}`);
  const user = await requestUser(deps, req.headers.authorization, req.socket.remoteAddress);
  const claims = verifySession(deps, match[1] as string, user);
  Object.assign(facts, sessionFacts(claims));
  const rest = match[2] ?? '';
  // A hub's WebSockets want its credentials, never the client's, and live under its base path less
  // "/wd/hub", Selenium's alias of the root for HTTP only (Grid 4 refuses WebSockets under it).
  const endpoint = sessionEndpoint(deps, claims);
  const wsBase = `${endpoint.origin.replace(/^http/, 'ws')}${endpoint.basePath.replace(/\/wd\/hub$/, '')}`;
  const target =
    rest === '/se/cdp' && claims.devtools
      ? await browserDevtoolsUrl(claims.devtools)
      : `${wsBase}/session/${claims.upstreamId}${rest}${url.search}`;
  const pool = sessionPool(deps, claims);
  const traits = pool && traitsOf(deps, pool);
  const socket = await openUpstream(target, req, endpoint.authorization, {
    refusedBy: traits?.remoteEnd ?? 'browser',
  });
  // A local browser writes and reads this machine's files: its client is held to the session's folder, as its
  // CDP commands over HTTP are (its kind's runtime bounds them, in a worker as its primary's launcher does).
  // Other kinds' browsers run in their own containers or on their hubs' machines: their sockets pass unchanged.
  const bounds = pool && runtimeOf(deps, pool)?.hostPaths;
  const check = bounds
    ? new SocketCommandCheck(rest === '/se/cdp' ? 'cdp' : 'bidi', bounds.hostPaths(claims.handle))
    : undefined;
  return {
    socket,
    onMessage: () => deps.sessions.touch(claims.key, deps.clock.now()),
    ...(check ? { check } : {}),
  };
}

/** A hub session's DevTools or VNC socket at its hub, with the hub's credentials. */
async function connectHub(
  req: IncomingMessage,
  url: URL,
  deps: GridDeps,
  facts: SocketSessionFacts,
): Promise<Upstream> {
  const user = await requestUser(deps, req.headers.authorization, req.socket.remoteAddress);
  const { path, claims } = selenoidRequest(deps, url.pathname, user);
  Object.assign(facts, sessionFacts(claims));
  const target = hubTarget(deps, path, claims);
  const wsOrigin = target.endpoint.origin.replace(/^http/, 'ws');
  // Selenoid and ggr take these with golang.org/x/net/websocket's Handler, which refuses a handshake
  // without a parseable Origin (403): the hub is told its own, as a page of its own would say.
  const socket = await openUpstream(
    `${wsOrigin}${target.path}${url.search}`,
    req,
    target.endpoint.authorization,
    {
      origin: target.endpoint.origin,
      refusedBy: 'hub',
    },
  );
  // DevTools traffic drives the browser (activity, as se:cdp's); watching over VNC does not.
  const touch = () => deps.sessions.touch(claims.key, deps.clock.now());
  return { socket, ...(path.kind === 'devtools' ? { onMessage: touch } : {}) };
}

/** The session's noVNC socket, for its owner or an admin (the page's origin was checked on upgrade). */
async function connectVnc(
  req: IncomingMessage,
  deps: GridDeps,
  key: string,
  facts: SocketSessionFacts,
): Promise<Upstream> {
  const user = await requestUser(deps, req.headers.authorization, req.socket.remoteAddress);
  const record = await visibleSession(deps, { user, admin: deps.config.admins.includes(user) }, key);
  Object.assign(facts, sessionFacts(record));
  const target = requireVncTarget(deps, record, true);
  return { socket: await openUpstream(`${target.origin.replace(/^http/, 'ws')}/websockify`, req) };
}

/** Reads the socket until stop(), which gives back `head` with what came meanwhile. */
function readWhileWaiting(socket: Duplex): { stop(head: Buffer): Buffer } {
  const chunks: Buffer[] = [];
  const keep = (chunk: Buffer) => chunks.push(chunk);
  // The HTTP server's sockets are half-open: the client's end is only an 'end', never a 'close' of itself.
  const ended = () => socket.destroy();
  socket.on('data', keep);
  socket.once('end', ended);
  return {
    stop(head) {
      socket.off('data', keep);
      socket.off('end', ended);
      // Left flowing: ws takes the socket's data in this same tick, and would never resume one paused here.
      return Buffer.concat([head, ...chunks]);
    },
  };
}

/** Whether the catalog serves a browser of this name (or alias): `/devtools/{name}` is then a new session. */
function isCatalogBrowser(deps: GridDeps, name: string): boolean {
  return Object.entries(deps.config.browsers).some(
    ([browserName, browser]) => browserName === name || browser.aliases.includes(name),
  );
}

/** This server's own address, for the sessions its sockets make through its front door. */
function ownOrigin(server: Server): string {
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the server listens on no port');
  const host =
    address.address === '::' ? '::1' : address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}
