/**
 * The Node server's request listener: WebDriver commands (`/session/{id}/…`, ~all of the traffic) are
 * taken before the Hono app sees them, matched by one regular expression, checked (the verified-ID cache
 * first; no network) and relayed with undici's `dispatch` (http/command-relay.ts). Everything else, and
 * every command this path is not sure to answer as the app would (requests a web page may have made, a
 * body not said to be JSON, file transfers, session events, CDP commands carried over HTTP, DELETE of the
 * session, URLs
 * the app would normalize), goes to the app unchanged, so each rule lives in one place. A small body of
 * declared length is read whole and sent as bytes (cheaper for undici than a stream: SMALL_BODY_BYTES); an
 * Execute Script is read too, and answered here when it is a cloud's executor script
 * (http/test-marks-commands.ts).
 * Errors are answered as the app's onError does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { carriesCdpCommand } from '../../core/cdp-over-http';
import type { GridDeps } from '../../core/grid-deps';
import type { Command } from '../../http/command-relay';
import { relayCommand } from '../../http/command-relay';
import { errorAnswer } from '../../http/error-answer';
import { translateUpstreamError } from '../../http/forward-command';
import type { RequestCounter } from '../../http/grid-info';
import { bodyTooLarge, checkDeclaredLength } from '../../http/request-body';
import { requestUser, userWithoutPassword } from '../../http/request-user';
import {
  answeredExecutorScript,
  EXECUTOR_SCRIPT_ANSWER,
  mayCarryExecutorScript,
  readsExecuteScript,
} from '../../http/test-marks-commands';
import { verifySession } from '../../http/verify-session';
import { WEBDRIVER_HEADERS } from '../../http/webdriver-json';

/**
 * A command's URL in the spelling the app would forward unchanged: either root, a session ID of the
 * token alphabet, path segments that neither start with a dot nor hold a character `new URL` would
 * rewrite, and an optional non-empty query of the same kind (without the apostrophe, which `new URL`
 * escapes in a query).
 */
const COMMAND_URL =
  /^(?:\/wd\/hub)?\/session\/([A-Za-z0-9_-]+)((?:\/(?:[A-Za-z0-9_~!$&'()*+,;=:@%-][A-Za-z0-9._~!$&'()*+,;=:@%-]*)?)*)(\?[A-Za-z0-9._~!$&()*+,;=:@%/?-]+)?$/;
/**
 * A body declared this long or shorter (a command's JSON: a locator, a script, keys) is read before it is
 * relayed: undici writes bytes with their head at once, where a stream costs it listeners and a write per
 * chunk. Measured (bench/command-turns-probe.ts, by turns, 2–3 runs each): gridgate's CPU a command over a
 * plain Node proxy's went from 166–187 µs to 85–100, its p50 over that proxy's from 0.14–0.25 ms to 0.11–0.14.
 */
const SMALL_BODY_BYTES = 64 * 1024;
const DECLARED_LENGTH = /^\d{1,5}$/;
// Answered by the app: Grid 4's file transfer (served here for local pools) and session events.
const APP_ROUTES = /^\/se\/(?:files?|event)(?:\/|$)/;

export interface CommandPathOptions {
  /** The app's /ping counter: commands taken here count as the app would count them. */
  counter: RequestCounter;
  /** What serves every request this path does not take (the app's Node listener, or a worker's relay). */
  app: (incoming: IncomingMessage, outgoing: ServerResponse) => void;
}

export function commandFastPath(deps: GridDeps, agent: Dispatcher, options: CommandPathOptions) {
  const { counter, app } = options;
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    const match = COMMAND_URL.exec(incoming.url ?? '');
    if (!match || !forThisPath(incoming, match[2] as string)) {
      app(incoming, outgoing);
      return;
    }
    counter.requests++;
    const token = match[1] as string;
    const command = { rest: match[2] as string, search: match[3] ?? '' };
    const { authorization } = incoming.headers;
    let user: string | undefined;
    try {
      user = userWithoutPassword(deps, authorization);
    } catch (error) {
      answerError(deps, incoming, outgoing, error);
      return;
    }
    if (user !== undefined) {
      relay(deps, agent, token, user, command, incoming, outgoing);
      return;
    }
    requestUser(deps, authorization, incoming.socket.remoteAddress).then(
      (checked) => relay(deps, agent, token, checked, command, incoming, outgoing),
      (error: unknown) => answerError(deps, incoming, outgoing, error),
    );
  };
}

/** Whether this path answers the request exactly as the app would; else the app takes it. */
function forThisPath(incoming: IncomingMessage, rest: string): boolean {
  const { headers, method } = incoming;
  // Signs of a web page (web-page-requests.ts decides those), or a body that may not be JSON.
  if (headers.origin !== undefined || headers['sec-fetch-site'] !== undefined) return false;
  const type = headers['content-type'];
  if (method === 'POST' && type !== undefined && !/^\s*application\/json\s*(?:;|$)/i.test(type)) return false;
  if (rest === '' || rest === '/') return method !== 'DELETE';
  // A CDP command over HTTP may be read and checked (http/checked-cdp-command.ts): the app's to do.
  if (carriesCdpCommand(rest)) return false;
  return !APP_ROUTES.test(rest);
}

function relay(
  deps: GridDeps,
  agent: Dispatcher,
  token: string,
  user: string,
  command: Omit<Command, 'claims'>,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): void {
  try {
    const claims = verifySession(deps, token, user);
    const done = (failure: unknown) => {
      if (failure === undefined) return;
      translateUpstreamError(deps, claims, failure).then(
        (error) => answerError(deps, incoming, outgoing, error),
        (error: unknown) => answerError(deps, incoming, outgoing, error),
      );
    };
    const method = incoming.method ?? 'GET';
    const declared = incoming.headers['content-length'];
    const executor = mayCarryExecutorScript(method, command.rest) && readsExecuteScript(declared);
    if (executor || readsWhole(declared)) {
      // A cloud's executor script is answered here; any other body goes on as the very bytes read.
      readBody(incoming, deps.config.limits.maxBodySize)
        .then(async (body) => {
          if (executor && (await answeredExecutorScript(deps, claims, body.toString('utf8')))) {
            answerJson(outgoing, 200, EXECUTOR_SCRIPT_ANSWER);
          } else relayCommand(deps, agent, { ...command, claims }, incoming, outgoing, done, body);
        })
        .catch((error: unknown) => answerError(deps, incoming, outgoing, error));
      return;
    }
    relayCommand(deps, agent, { ...command, claims }, incoming, outgoing, done);
  } catch (error) {
    answerError(deps, incoming, outgoing, error);
  }
}

/** A body to read before relaying: declared, not empty (none is sent as none), at most SMALL_BODY_BYTES. */
function readsWhole(declared: string | undefined): boolean {
  if (declared === undefined || !DECLARED_LENGTH.test(declared)) return false;
  const length = Number(declared);
  return length > 0 && length <= SMALL_BODY_BYTES;
}

/** The whole body, refused (413) past the limit, declared or not; a client gone before its end fails it. */
async function readBody(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  checkDeclaredLength(incoming.headers['content-length'], limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw bodyTooLarge(limit);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** The app's answer to a failed request (its onError's), written to Node's response. */
function answerError(deps: GridDeps, incoming: IncomingMessage, outgoing: ServerResponse, error: unknown) {
  if (outgoing.headersSent || outgoing.destroyed) {
    outgoing.destroy();
    return;
  }
  const path = (incoming.url ?? '/').split('?')[0] as string;
  const accept = incoming.headers.accept;
  const answer = errorAnswer(error, { method: incoming.method ?? 'GET', path, accept }, deps.logger);
  answerJson(outgoing, answer.status, answer.body, answer.headers);
}

/** gridgate's own JSON answer as the app sends it: names in lower case and in order, then the length. */
function answerJson(
  outgoing: ServerResponse,
  status: number,
  value: unknown,
  extra: Record<string, string> = {},
) {
  const body = JSON.stringify(value);
  const headers = Object.entries({ ...WEBDRIVER_HEADERS, ...extra })
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .flat();
  outgoing.writeHead(status, [...headers, 'Content-Length', String(Buffer.byteLength(body))]);
  outgoing.end(body);
}
