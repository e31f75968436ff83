/**
 * One WebSocket relayed to another: the upstream opened with the client's subprotocols (held until the relay
 * listens), messages either way passed on as they came, a local browser's client held to its session's
 * folder message by message (core/socket-command-check.ts), and either side's close closing the other.
 */
import type { IncomingMessage } from 'node:http';
import { request } from 'undici';
import type { RawData, WebSocket } from 'ws';
import { WebDriverError } from '../../core/errors';
import type { Verdict } from '../../core/socket-command-check';

const CONNECT_TIMEOUT_MS = 10_000;

/** What becomes of each client message before the upstream gets it (core/socket-command-check.ts's shape). */
export interface ClientMessageCheck {
  /** Whether the message may be one to decide on; one that is not is relayed as it came. */
  mayCheck(message: Buffer): boolean;
  decide(message: Buffer): Promise<Verdict>;
}

export interface Upstream {
  socket: WebSocket;
  /** Called for each message either way (the session's activity), or nothing. */
  onMessage?: () => void;
  /** What the client may send the browser, for a browser on this machine; none: everything is relayed. */
  check?: ClientMessageCheck;
  /** Called with the client's socket once it is open, before anything of the upstream's reaches it. */
  onOpen?: (client: WebSocket) => void;
  /** Called once when either side closes: a socket that is a session ends it. */
  onClose?: () => void;
}

/** Opens the upstream socket with the client's subprotocols, resolving once it is open. */
export async function openUpstream(
  target: string,
  req: IncomingMessage,
  authorization?: string,
  {
    refusedBy = 'browser',
    headers = {},
    ...extra
  }: { origin?: string; refusedBy?: 'browser' | 'hub'; headers?: Record<string, string> } = {},
): Promise<WebSocket> {
  const protocols = req.headers['sec-websocket-protocol']?.split(',').map((p) => p.trim());
  const { WebSocket } = await import('ws');
  const socket = new WebSocket(target, protocols, {
    ...extra,
    perMessageDeflate: false,
    handshakeTimeout: CONNECT_TIMEOUT_MS,
    // Past ws's 100 MiB default: a CDP or Playwright answer carries whole screenshots and files.
    maxPayload: 0,
    headers: { ...headers, ...(authorization ? { authorization } : {}) },
  });
  await new Promise<void>((resolve, reject) => {
    // Held until the relay listens: a server that speaks first (VNC's RFB greeting, a DevTools
    // event) would otherwise say it to nobody while the client's upgrade completes.
    socket.once('open', () => {
      socket.pause();
      resolve();
    });
    socket.once('error', (error) => reject(unreachable(refusedBy, error)));
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

/**
 * The upstream could not be reached (refused, reset, timed out). What the socket's error says names the
 * browser's or hub's address inside the grid's network: it stays in the cause, for the log.
 */
function unreachable(remoteEnd: 'browser' | 'hub', cause: unknown): WebDriverError {
  return new WebDriverError('unknown error', `the ${remoteEnd} cannot be reached; the grid’s log says why`, {
    status: 502,
    cause,
  });
}

/** Chromium's browser-wide DevTools socket, found the way CDP clients find it. */
export async function browserDevtoolsUrl(devtools: string): Promise<string> {
  const { webSocketDebuggerUrl } = await request(`http://${devtools}/json/version`, {
    headersTimeout: CONNECT_TIMEOUT_MS,
  })
    .then((response) => response.body.json() as Promise<{ webSocketDebuggerUrl?: string }>)
    .catch((error: unknown) => {
      throw unreachable('browser', error);
    });
  if (!webSocketDebuggerUrl)
    throw new WebDriverError('unknown error', 'the browser offers no DevTools endpoint');
  return webSocketDebuggerUrl;
}

export function relay(client: WebSocket, upstream: Upstream): void {
  const pipe = (from: WebSocket, to: WebSocket, send: Send) => {
    from.on('message', (data, isBinary) => {
      upstream.onMessage?.();
      send(data, isBinary);
    });
    from.on('close', (code, reason) => {
      closeQuietly(to, code, reason);
      upstream.onClose?.();
    });
    from.on('error', () => to.terminate());
  };
  const toBrowser = sendTo(upstream.socket);
  pipe(client, upstream.socket, upstream.check ? checked(upstream.check, toBrowser, client) : toBrowser);
  pipe(upstream.socket, client, sendTo(client));
  upstream.onOpen?.(client);
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
function checked(check: ClientMessageCheck, toBrowser: Send, client: WebSocket): Send {
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
