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
import { request } from 'undici';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { WebDriverError } from '../../core/errors';
import { type GridDeps, sessionPool } from '../../core/grid-deps';
import { SocketCommandCheck } from '../../core/socket-command-check';
import { sessionEndpoint } from '../../http/forward-command';
import { hubTarget, selenoidRequest } from '../../http/hub-passthrough';
import { requestUser } from '../../http/request-user';
import { visibleSession } from '../../http/ui/ui-data';
import { requireVncTarget } from '../../http/ui/ui-vnc';
import { verifySession } from '../../http/verify-session';
import { crossSiteRefusal, originPolicy, signalsOf } from '../../http/web-page-requests';
import { sessionFolderContext } from '../../pools/local/session-folder-bounds';
import { isWebSocketUpgrade, serveAsHttp } from './non-websocket-upgrade';
import { asUpstreamError, writeRawError } from './raw-error-answer';

const SESSION_PATH = /^(?:\/wd\/hub)?\/session\/([A-Za-z0-9_-]+)(\/[^?]*)?$/;
// The status page's VNC view of a session (functions/http/ui/ui-routes.ts VNC_PREFIX).
const VNC_PATH = /^\/ui\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/vnc\/websockify$/;
// Selenoid's WebSocket paths (the rest of the path is checked by parseSelenoidPath).
const SELENOID_SOCKET = /^\/(?:devtools|vnc)\//;
const CONNECT_TIMEOUT_MS = 10_000;

interface Upstream {
  socket: WebSocket;
  /** Called for each message either way (the session's activity), or nothing. */
  onMessage?: () => void;
  /** What the client may send the browser, for a browser on this machine; none: everything is relayed. */
  check?: SocketCommandCheck;
}

export interface WebSocketProxyOptions {
  /** Browsers must name the grid by a name it knows (see AppOptions.knownHostsOnly); default true. */
  knownHostsOnly?: boolean;
  /**
   * The process whose local launcher made the sessions' folders (the primary, when this is a worker): a
   * session's folder is named after it and the browser's handle. This process when not given.
   */
  sessionOwner?: number;
}

export function attachWebSocketProxy(
  server: Server,
  deps: GridDeps,
  options: WebSocketProxyOptions = {},
): void {
  let clients: WebSocketServer | undefined;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!isWebSocketUpgrade(req)) return serveAsHttp(server, req, socket, head);
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://gridgate');
    // A browser opens WebSockets to any site with the user's saved credentials and no CORS check
    // (cross-site WebSocket hijacking): another site's page must not reach a session's BiDi, CDP or VNC.
    const header = (name: string) => [req.headers[name] ?? []].flat()[0];
    const refusal = crossSiteRefusal(
      signalsOf(req.method ?? 'GET', url, header),
      originPolicy(deps.config, options.knownHostsOnly ?? true),
    );
    if (refusal) return refuse(socket, refusal);
    const vnc = VNC_PATH.exec(url.pathname);
    const connecting = vnc
      ? connectVnc(req, deps, vnc[1] as string)
      : SELENOID_SOCKET.test(url.pathname)
        ? connectHub(req, url, deps)
        : connect(req, url, deps, options.sessionOwner);
    Promise.all([connecting, import('ws')])
      .then(([upstream, { WebSocketServer }]) => {
        if (socket.destroyed) return upstream.socket.terminate(); // the client gave up meanwhile
        clients ??= new WebSocketServer({ noServer: true, perMessageDeflate: false });
        clients.handleUpgrade(req, socket, head, (client) => relay(client, upstream));
      })
      .catch((error: unknown) => refuse(socket, error));
  });
}

async function connect(
  req: IncomingMessage,
  url: URL,
  deps: GridDeps,
  sessionOwner: number | undefined,
): Promise<Upstream> {
  const match = SESSION_PATH.exec(url.pathname);
  if (!match) throw new WebDriverError('unknown command', `no WebSocket endpoint at ${url.pathname}`);
  const user = await requestUser(deps, req.headers.authorization, req.socket.remoteAddress);
  const claims = verifySession(deps, match[1] as string, user);
  const rest = match[2] ?? '';
  // A hub's WebSockets want its credentials, never the client's, and live under its base path less
  // "/wd/hub", Selenium's alias of the root for HTTP only (Grid 4 refuses WebSockets under it).
  const endpoint = sessionEndpoint(deps, claims);
  const wsBase = `${endpoint.origin.replace(/^http/, 'ws')}${endpoint.basePath.replace(/\/wd\/hub$/, '')}`;
  const target =
    rest === '/se/cdp' && claims.devtools
      ? await browserDevtoolsUrl(claims.devtools)
      : `${wsBase}/session/${claims.upstreamId}${rest}${url.search}`;
  const kind = sessionPool(deps, claims)?.kind;
  const socket = await open(target, req, endpoint.authorization, {
    refusedBy: kind === 'hub' ? 'hub' : 'browser',
  });
  // A local browser writes and reads this machine's files: its client is held to the session's folder. Other
  // kinds' browsers run in their own containers or on their hubs' machines, and their sockets pass unchanged.
  const check =
    kind === 'local'
      ? new SocketCommandCheck(
          rest === '/se/cdp' ? 'cdp' : 'bidi',
          sessionFolderContext(claims.handle, sessionOwner),
        )
      : undefined;
  return {
    socket,
    onMessage: () => deps.sessions.touch(claims.key, deps.clock.now()),
    ...(check ? { check } : {}),
  };
}

/** A hub session's DevTools or VNC socket at its hub, with the hub's credentials. */
async function connectHub(req: IncomingMessage, url: URL, deps: GridDeps): Promise<Upstream> {
  const user = await requestUser(deps, req.headers.authorization, req.socket.remoteAddress);
  const { path, claims } = selenoidRequest(deps, url.pathname, user);
  const target = hubTarget(deps, path, claims);
  const wsOrigin = target.endpoint.origin.replace(/^http/, 'ws');
  // Selenoid and ggr take these with golang.org/x/net/websocket's Handler, which refuses a handshake
  // without a parseable Origin (403): the hub is told its own, as a page of its own would say.
  const socket = await open(`${wsOrigin}${target.path}${url.search}`, req, target.endpoint.authorization, {
    origin: target.endpoint.origin,
    refusedBy: 'hub',
  });
  // DevTools traffic drives the browser (activity, as se:cdp's); watching over VNC does not.
  const touch = () => deps.sessions.touch(claims.key, deps.clock.now());
  return { socket, ...(path.kind === 'devtools' ? { onMessage: touch } : {}) };
}

/** The session's noVNC socket, for its owner or an admin (the page's origin was checked on upgrade). */
async function connectVnc(req: IncomingMessage, deps: GridDeps, key: string): Promise<Upstream> {
  const user = await requestUser(deps, req.headers.authorization, req.socket.remoteAddress);
  const record = await visibleSession(deps, { user, admin: deps.config.admins.includes(user) }, key);
  const target = requireVncTarget(deps, record, true);
  return { socket: await open(`${target.origin.replace(/^http/, 'ws')}/websockify`, req) };
}

/** Opens the upstream socket with the client's subprotocols, resolving once it is open. */
async function open(
  target: string,
  req: IncomingMessage,
  authorization?: string,
  { refusedBy = 'browser', ...extra }: { origin?: string; refusedBy?: 'browser' | 'hub' } = {},
): Promise<WebSocket> {
  const protocols = req.headers['sec-websocket-protocol']?.split(',').map((p) => p.trim());
  const { WebSocket } = await import('ws');
  const socket = new WebSocket(target, protocols, {
    ...extra,
    perMessageDeflate: false,
    handshakeTimeout: CONNECT_TIMEOUT_MS,
    headers: authorization ? { authorization } : {},
  });
  await new Promise<void>((resolve, reject) => {
    // Held until the relay listens: a server that speaks first (VNC's RFB greeting, a DevTools
    // event) would otherwise say it to nobody while the client's upgrade completes.
    socket.once('open', () => {
      socket.pause();
      resolve();
    });
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(refusal(refusedBy, res.statusCode)));
  });
  return socket;
}

/**
 * The upstream answered the upgrade with an HTTP status. A browser that does so no longer has the session;
 * a hub that does is a gateway failing (W3C has no code for it): 502, as for a hub that cannot be reached,
 * never `invalid session id` for a session the hub may well still run.
 */
function refusal(refusedBy: 'browser' | 'hub', status: number | undefined): WebDriverError {
  if (refusedBy === 'browser') {
    return new WebDriverError('invalid session id', `the browser refused the WebSocket (${status})`);
  }
  return new WebDriverError('unknown error', `the hub refused the WebSocket (${status})`, { status: 502 });
}

/** Chromium's browser-wide DevTools socket, found the way CDP clients find it. */
async function browserDevtoolsUrl(devtools: string): Promise<string> {
  const response = await request(`http://${devtools}/json/version`, { headersTimeout: CONNECT_TIMEOUT_MS });
  const { webSocketDebuggerUrl } = (await response.body.json()) as { webSocketDebuggerUrl?: string };
  if (!webSocketDebuggerUrl)
    throw new WebDriverError('unknown error', 'the browser offers no DevTools endpoint');
  return webSocketDebuggerUrl;
}

function relay(client: WebSocket, upstream: Upstream): void {
  const pipe = (from: WebSocket, to: WebSocket, send: Send) => {
    from.on('message', (data, isBinary) => {
      upstream.onMessage?.();
      send(data, isBinary);
    });
    from.on('close', (code, reason) => closeQuietly(to, code, reason));
    from.on('error', () => to.terminate());
  };
  const toBrowser = sendTo(upstream.socket);
  pipe(client, upstream.socket, upstream.check ? checked(upstream.check, toBrowser, client) : toBrowser);
  pipe(upstream.socket, client, sendTo(client));
  upstream.socket.resume();
}

type Send = (data: RawData | string, isBinary: boolean) => void;

const sendTo =
  (socket: WebSocket): Send =>
  (data, isBinary) => {
    if (socket.readyState === socket.OPEN) socket.send(data, { binary: isBinary });
  };

/**
 * The client's messages through the check, in the order they came: while one waits for its check (a path
 * looked up on disk), those after it wait too. Both protocols are text: a binary message, which the browser
 * might read otherwise than the check, closes the socket (1003: data it cannot accept, RFC 6455 §7.4.1).
 */
function checked(check: SocketCommandCheck, toBrowser: Send, client: WebSocket): Send {
  const toClient = sendTo(client);
  let waiting = 0;
  let queue = Promise.resolve();
  return (data, isBinary) => {
    if (isBinary) return client.close(1003, 'gridgate relays only text messages to this browser');
    const message = asBuffer(data);
    if (waiting === 0 && !check.mayCheck(message)) return toBrowser(message, false);
    waiting++;
    queue = queue
      .then(() => check.decide(message))
      .then((verdict) =>
        'forward' in verdict ? toBrowser(verdict.forward, false) : toClient(verdict.answer, false),
      )
      .catch(() => client.terminate()) // a check that failed unforeseen: nothing unchecked passes
      .finally(() => waiting--);
  };
}

function asBuffer(data: RawData | string): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (typeof data === 'string') return Buffer.from(data);
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data as ArrayBuffer);
}

function closeQuietly(socket: WebSocket, code: number, reason: Buffer): void {
  // 1005/1006 are reserved for "no status" and may not be sent in a close frame (RFC 6455 §7.4.1).
  if (socket.readyState === socket.OPEN) socket.close(code === 1005 || code === 1006 ? 1000 : code, reason);
  else socket.terminate();
}

function refuse(socket: Duplex, error: unknown): void {
  writeRawError(socket, asUpstreamError(error));
}
