/**
 * Streams one WebDriver command to the session's browser and its answer back, never buffering
 * (DESIGN invariant 6). Under Node the answer is written straight into the socket (command-relay.ts);
 * elsewhere the portable path returns a web Response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import type { Context } from 'hono';
import type { Dispatcher } from 'undici';
import { upstreamEndpoint } from '../core/browser-network';
import { carriesCdpCommand } from '../core/cdp-over-http';
import { WebDriverError } from '../core/errors';
import { type GridDeps, sessionPool } from '../core/grid-deps';
import type { SessionClaims } from '../core/session-token';
import type { UpstreamEndpoint } from '../core/upstream-endpoint';
import {
  clientResponseHeaders,
  upstreamRequestHeaders,
  webResponseHeaders,
} from '../webdriver-client/upstream-client';
import { checkedCdpCommandBody } from './checked-cdp-command';
import { type Command, relayCommand } from './command-relay';
import { byteLimit, checkDeclaredLength } from './request-body';
import { commandWait, waitSignal } from './runtime-limits';
import { isUnreachable, sessionGone } from './session-gone';
import { executeScript, mayCarryExecutorScript } from './test-marks-commands';
import { mayMeanSessionGone, upstreamSessionGone } from './upstream-session-gone';
import { webStreamOf } from './web-stream';

export type { Command } from './command-relay';

interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/**
 * @hono/node-server's "answered already" marker, loaded on first use: its module makes it with the
 * runtime's Response class when it loads, which a server answering commands natively may never need; the
 * Node listener loads it before the adapter replaces that class (servers/node/app-listener.ts).
 */
const alreadySent = () =>
  import('@hono/node-server/utils/response').then(({ RESPONSE_ALREADY_SENT }) => RESPONSE_ALREADY_SENT);

export async function forwardCommand(c: Context, deps: GridDeps, agent: Dispatcher, command: Command) {
  // A CDP command over HTTP to a browser on this machine is read and checked, then sent as checked (on the
  // portable path: its body is a string now); an exact path lookup decides, so every other command streams
  // as it came. chromedriver runs them on POST alone; any method with a body is checked all the same.
  const { method } = c.req;
  let checkedBody =
    method !== 'GET' && method !== 'HEAD' && carriesCdpCommand(command.rest)
      ? await checkedCdpCommandBody(deps, command.claims, c.req.raw)
      : undefined;
  // Execute Script may be a cloud's executor script, which is answered here (test-marks-commands.ts).
  if (mayCarryExecutorScript(method, command.rest)) {
    const script = await executeScript(c, deps, command.claims);
    if (script && 'answered' in script) return script.answered;
    checkedBody = script?.forward;
  }
  const bindings = c.env as Partial<NodeBindings> | undefined;
  if (checkedBody === undefined && bindings?.outgoing && bindings.incoming) {
    const { incoming, outgoing } = bindings;
    const failure = await new Promise<unknown>((resolve) =>
      relayCommand(deps, agent, command, incoming, outgoing, resolve),
    );
    if (failure !== undefined) throw await translateUpstreamError(deps, command.claims, failure);
    return await alreadySent();
  }
  deps.sessions.touch(command.claims.key, deps.clock.now(), c.req.method, command.rest);
  return await forwardPortably(c, deps, agent, command, checkedBody).catch(async (error: unknown) => {
    throw await translateUpstreamError(deps, command.claims, error);
  });
}

/** The session's remote end, by the pool (current or retired by a reload) whose address it carries. */
export function sessionEndpoint(deps: GridDeps, claims: SessionClaims): UpstreamEndpoint {
  return upstreamEndpoint(sessionPool(deps, claims), claims.address);
}

/** Where the command goes: the browser, or the hub under its base path, with the hub's credentials only. */
function target(
  deps: GridDeps,
  command: Command,
  clientHeaders: Record<string, string | string[] | undefined>,
) {
  const { claims, rest, search } = command;
  const endpoint = sessionEndpoint(deps, claims);
  const headers = upstreamRequestHeaders(clientHeaders);
  if (endpoint.authorization) headers.authorization = endpoint.authorization;
  return {
    origin: endpoint.origin,
    path: `${endpoint.basePath}/session/${claims.upstreamId}${rest}${search}`,
    headers,
  };
}

/**
 * The portable path, which the Lambda handler takes: the answer's head must come before the runtime's
 * limits cut the request (the invocation deadline, the front door's silence limit; runtime-limits.ts),
 * or the client gets W3C `timeout` while there is still time to say so.
 */
async function forwardPortably(
  c: Context,
  deps: GridDeps,
  agent: Dispatcher,
  command: Command,
  checkedBody: string | undefined,
) {
  const limit = deps.config.limits.maxBodySize;
  const request = c.req.raw;
  checkDeclaredLength(request.headers.get('content-length'), limit);
  const headers = Object.fromEntries(request.headers);
  // A body read and written again has a length of its own, which undici declares.
  if (checkedBody !== undefined) delete headers['content-length'];
  // A web Request's own body says whether there is one; its headers need not (a streamed body has no
  // Content-Length, and web runtimes do not expose Transfer-Encoding).
  const body =
    checkedBody ??
    (request.body && request.method !== 'GET' && request.method !== 'HEAD'
      ? pipeline(Readable.fromWeb(request.body as never), byteLimit(limit), () => {})
      : null);
  const wait = commandWait(c.env, Date.now());
  const bounded = wait && waitSignal(wait, request.signal);
  let response: Dispatcher.ResponseData;
  try {
    response = await agent.request({
      ...target(deps, command, headers),
      method: request.method as Dispatcher.HttpMethod,
      body,
      signal: bounded?.signal ?? request.signal,
      ...(wait?.bodyIdleMs === undefined ? {} : { bodyTimeout: wait.bodyIdleMs }),
    });
  } finally {
    bounded?.answered();
  }
  let heldBody: string | undefined;
  if (mayMeanSessionGone(response.statusCode)) {
    heldBody = await response.body.text();
    const gone = await upstreamSessionGone(deps, command.claims, heldBody);
    if (gone) throw gone;
  }
  const responseHeaders = webResponseHeaders(clientResponseHeaders(response.headers));
  const empty = response.statusCode === 204 || response.statusCode === 304 || request.method === 'HEAD';
  // Read only as the client reads, and the browser's answer destroyed (its connection freed) if it goes away.
  const answer = heldBody ?? webStreamOf(response.body);
  return new Response(empty ? null : answer, {
    status: response.statusCode,
    headers: responseHeaders,
  });
}

/** An error before any answer went out, as the W3C error the client should see. */
export async function translateUpstreamError(deps: GridDeps, claims: SessionClaims, error: unknown) {
  if (error instanceof WebDriverError) return error;
  deps.metrics?.count('UpstreamErrors', { pool: claims.pool });
  if (isUnreachable(error)) return sessionGone(deps, claims);
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new WebDriverError('timeout', 'the browser did not answer in time', {
      cause: error,
      session: claims,
    });
  }
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof WebDriverError) return cause;
  // What undici says names the browser's address inside the grid's network: it stays in the cause, for the log.
  return new WebDriverError('unknown error', 'the browser could not be reached; the grid’s log says why', {
    status: 502,
    cause: error,
    session: claims,
  });
}
