/**
 * Selenoid's paths for a hub pool's sessions (`/download/`, `/clipboard/`, `/devtools/`), passed through to
 * the hub as ggr does: any method, the query kept, the answer streamed back unchanged.
 * Unlike ggr, the ID is gridgate's signed one, checked for the caller (a forged or another user's ID never
 * reaches a hub), and the hub hears its own credentials, never the client's; running or ended sessions
 * alike. Videos and logs are served by the recordings' routes (pools/hub/hub-artifacts.ts for hub
 * pools); WebSockets (devtools, VNC) by the Node server (servers/node/websocket-proxy.ts).
 */
import { pipeline, Readable } from 'node:stream';
import type { Context } from 'hono';
import type { Dispatcher } from 'undici';
import { upstreamEndpoint } from '../core/browser-network';
import { WebDriverError } from '../core/errors';
import { type GridDeps, sessionPool, traitsOf } from '../core/grid-deps';
import { hubPathOf, parseSelenoidPath, type SelenoidPath } from '../core/selenoid-paths';
import type { SessionClaims } from '../core/session-token';
import {
  clientResponseHeaders,
  upstreamRequestHeaders,
  webResponseHeaders,
} from '../webdriver-client/upstream-client';
import { byteLimit, checkDeclaredLength } from './request-body';
import { verifySessionOwner } from './verify-session';
import { webStreamOf } from './web-stream';

/** The prefixes served here, each followed by a session ID. */
export const SELENOID_PREFIXES = ['/download', '/clipboard', '/devtools'] as const;

/** A Selenoid path and the session it names, or W3C `unknown command` / `invalid session id`. */
export function selenoidRequest(
  deps: GridDeps,
  pathname: string,
  user: string,
): { path: SelenoidPath; claims: SessionClaims } {
  const path = parseSelenoidPath(pathname);
  if (!path) throw new WebDriverError('unknown command', `unknown command: ${pathname}`);
  return { path, claims: verifySessionOwner(deps, path.token, user) };
}

/**
 * Where a hub session's Selenoid path is on its hub: origin, path and the hub's credentials. Sessions of
 * other pools are refused: their browsers serve no such paths.
 */
export function hubTarget(deps: GridDeps, path: SelenoidPath, claims: SessionClaims) {
  const pool = sessionPool(deps, claims);
  if (!pool || traitsOf(deps, pool).remoteEnd !== 'hub') {
    throw new WebDriverError(
      'unknown command',
      `/${path.kind}/ is not served for sessions of pool ${claims.pool} (a ${pool?.kind} pool)`,
    );
  }
  const endpoint = upstreamEndpoint(pool, claims.address);
  return { endpoint, path: hubPathOf(path, claims.upstreamId) };
}

/** Serves one Selenoid path of a hub session by asking the hub. */
export async function passToHub(
  c: Context,
  deps: GridDeps,
  agent: Dispatcher,
  selenoid: { path: SelenoidPath; claims: SessionClaims },
): Promise<Response> {
  const target = hubTarget(deps, selenoid.path, selenoid.claims);
  const request = c.req.raw;
  const limit = deps.config.limits.maxBodySize;
  checkDeclaredLength(request.headers.get('content-length'), limit);
  const headers = upstreamRequestHeaders(Object.fromEntries(request.headers));
  if (target.endpoint.authorization) headers.authorization = target.endpoint.authorization;
  const body =
    request.body && request.method !== 'GET' && request.method !== 'HEAD'
      ? pipeline(Readable.fromWeb(request.body as never), byteLimit(limit), () => {})
      : null;
  let response: Dispatcher.ResponseData;
  try {
    response = await agent.request({
      origin: target.endpoint.origin,
      path: `${target.path}${new URL(request.url).search}`,
      method: request.method as Dispatcher.HttpMethod,
      headers,
      body,
      signal: request.signal,
    });
  } catch (error) {
    if (error instanceof WebDriverError) throw error;
    // ggr answers 502 here too, with an empty body; ours is a W3C error like every other. What undici says
    // names the hub's address: it stays in the cause, for the log.
    throw new WebDriverError('unknown error', 'the hub could not be reached; the grid’s log says why', {
      status: 502,
      cause: error,
      session: selenoid.claims,
    });
  }
  const empty = response.statusCode === 204 || response.statusCode === 304 || request.method === 'HEAD';
  if (empty) await response.body.dump();
  return new Response(empty ? null : webStreamOf(response.body), {
    status: response.statusCode,
    headers: webResponseHeaders(clientResponseHeaders(response.headers)),
  });
}
