/**
 * The live VNC view of a session's browser: docker-selenium images serve noVNC (a page and a websockify
 * WebSocket) on their own port, which the status page shows through gridgate after the page's own checks.
 * Only the browser's address its session was created with, in its pool's networks, on the pool's
 * configured port is ever contacted: nothing in the request names where to go (no SSRF).
 */
import type { Dispatcher } from 'undici';
import { upstreamEndpoint } from '../../core/browser-network';
import { configTraitsOf } from '../../core/config-traits-by-kind';
import { invalidSessionId, WebDriverError } from '../../core/errors';
import { type GridDeps, runtimeOf, sessionPool } from '../../core/grid-deps';
import type { SessionRecord } from '../../core/ports';
import { webStreamOf } from '../web-stream';

/** Where a session's noVNC answers, and the password its viewer needs. */
export interface VncTarget {
  /** http://host:port of the noVNC server. */
  origin: string;
  password: string;
}

// A person is waiting for the page: a noVNC server that takes longer is better shown as an error.
const VNC_TIMEOUT_MS = 10_000;
// noVNC's files: letters, digits and the usual punctuation of file names, never "..".
const VNC_FILE = /^\/(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const PASSED_HEADERS = ['content-type', 'content-length', 'last-modified', 'etag'];

/**
 * The session's noVNC server, or undefined when its pool offers none (local and hub pools, a pool whose
 * vncPort is false or 0) or when this server cannot carry the WebSocket the view needs.
 */
export function vncTarget(deps: GridDeps, record: SessionRecord, webSockets: boolean): VncTarget | undefined {
  if (!webSockets || record.endedAt !== undefined) return undefined;
  const pool = sessionPool(deps, record);
  // A launcher that knows where its browser's noVNC is published (a container pool's) says so itself.
  const published = pool && runtimeOf(deps, pool)?.vnc?.vncOrigin(record.handle);
  if (published && 'vncPassword' in pool) return { origin: published, password: pool.vncPassword };
  const vnc = pool && configTraitsOf(pool).vncBesideBrowser?.(pool);
  if (!vnc) return undefined;
  // The WebDriver address, checked against the pool's networks like any session ID's; same host, VNC port.
  const { origin } = upstreamEndpoint(pool, record.address);
  return { origin: origin.replace(/:\d+$/, `:${vnc.port}`), password: vnc.password };
}

/** The target, or the W3C error the page shows when there is no VNC view of this session here. */
export function requireVncTarget(deps: GridDeps, record: SessionRecord, webSockets: boolean): VncTarget {
  if (record.endedAt !== undefined) throw invalidSessionId(`session ended: ${record.endReason ?? 'ended'}`);
  const target = vncTarget(deps, record, webSockets);
  if (!target) {
    throw new WebDriverError(
      'unknown command',
      webSockets
        ? `session ${record.key} has no VNC view: its pool offers none`
        : 'no VNC view here: this server cannot carry WebSockets (the page shows screenshots instead)',
    );
  }
  return target;
}

/** One of noVNC's files (its page, scripts, styles, images), streamed from the session's browser. */
export async function vncFile(
  agent: Dispatcher,
  target: VncTarget,
  path: string,
  search: string,
  session: SessionRecord,
): Promise<Response> {
  if (!VNC_FILE.test(path)) throw new WebDriverError('invalid argument', 'not a file of the VNC viewer');
  let response: Dispatcher.ResponseData;
  try {
    response = await agent.request({
      origin: target.origin,
      path: `${path}${search}`,
      method: 'GET',
      headersTimeout: VNC_TIMEOUT_MS,
      bodyTimeout: VNC_TIMEOUT_MS,
    });
  } catch (error) {
    // What undici says names the viewer's address inside the grid's network: it stays in the cause, for the log.
    throw new WebDriverError(
      'unknown error',
      'the browser’s VNC viewer did not answer; the grid’s log says why',
      {
        cause: error,
        status: 502,
        session,
      },
    );
  }
  const headers = new Headers(VNC_HEADERS);
  for (const name of PASSED_HEADERS) {
    const value = response.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  const empty = response.statusCode === 204 || response.statusCode === 304;
  if (empty) await response.body.dump();
  return new Response(empty ? null : webStreamOf(response.body), {
    status: response.statusCode,
    headers,
  });
}

/**
 * noVNC's files are served from gridgate's origin so that its WebSocket goes through gridgate too; they
 * may be framed by the status page only, and nothing else of the browser's answer (cookies, its own
 * policies) is passed on.
 */
const VNC_HEADERS = {
  'content-security-policy': "frame-ancestors 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
