/**
 * One WebDriver command relayed under Node: the client's request streamed to the session's browser with
 * undici's `dispatch` and one handler object, the browser's answer written straight into Node's
 * response as it arrives (DESIGN invariant 6). This is the whole per-command cost beyond Node's and
 * undici's own: no web Request or Response, no stream handler, no AbortSignal; the client going away
 * aborts the browser's request through the abort function undici hands the handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { Dispatcher } from 'undici';
import { upstreamEndpoint } from '../core/browser-network';
import type { GridDeps } from '../core/grid-deps';
import { sessionPool } from '../core/grid-deps';
import type { SessionClaims } from '../core/session-token';
import { rawClientResponseHeaders, rawUpstreamRequestHeaders } from '../webdriver-client/upstream-client';
import { byteLimit, checkDeclaredLength } from './request-body';
import { mayMeanSessionGone, upstreamSessionGone } from './upstream-session-gone';

export interface Command {
  claims: SessionClaims;
  /** The path after /session/{id}, e.g. "/url" or "" for the session itself. */
  rest: string;
  /** The query string, with its "?", or "". */
  search: string;
}

/**
 * How a relay ended: `undefined` once the answer went out (or the client went away, which leaves nothing
 * to say), else why the command failed while nothing had been answered yet, for the caller to answer.
 */
export type RelayDone = (failure?: unknown) => void;

/**
 * Relays `command` and calls `done` exactly once. A declared body over the size limit throws (413) before
 * anything is sent. Touches the session first (idle tracking, command counts). `read`: the client's body,
 * already read whole (an Execute Script looked at for an executor script), sent as those very bytes.
 */
export function relayCommand(
  deps: GridDeps,
  agent: Dispatcher,
  command: Command,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  done: RelayDone,
  read?: Buffer,
): void {
  const { claims, rest, search } = command;
  const method = incoming.method ?? 'GET';
  deps.sessions.touch(claims.key, deps.clock.now(), method, rest);
  const limit = deps.config.limits.maxBodySize;
  checkDeclaredLength(incoming.headers['content-length'], limit);
  const endpoint = upstreamEndpoint(sessionPool(deps, claims), claims.address);
  const relay = new CommandRelay(deps, claims, outgoing, limit, done);
  agent.dispatch(
    {
      origin: endpoint.origin,
      path: `${endpoint.basePath}/session/${claims.upstreamId}${rest}${search}`,
      method: method as Dispatcher.HttpMethod,
      headers: rawUpstreamRequestHeaders(incoming.rawHeaders, endpoint.authorization),
      body: read ?? requestBody(method, incoming, limit),
    },
    relay,
  );
}

/** The client's body as the browser gets it: none, as it came (its length declared), or cut at the limit. */
function requestBody(method: string, incoming: IncomingMessage, limit: number) {
  if (method === 'GET' || method === 'HEAD') return null;
  const { headers } = incoming;
  if (headers['transfer-encoding'] !== undefined) return pipeline(incoming, byteLimit(limit), () => {});
  return Number(headers['content-length'] ?? 0) > 0 ? incoming : null;
}

/**
 * undici's handler for one command, in the interface undici's own clients call (onConnect … onComplete),
 * which needs no adapter object per request. A 404 may be the browser saying the session is gone: it is
 * held back and read (it is a small error body) before it is passed on.
 */
class CommandRelay implements Dispatcher.DispatchHandler {
  private abort: ((error?: Error) => void) | undefined;
  private resume: (() => void) | undefined;
  private held: { statusCode: number; rawHeaders: Buffer[]; chunks: Buffer[]; size: number } | undefined;
  private finished = false;

  constructor(
    private readonly deps: GridDeps,
    private readonly claims: SessionClaims,
    private readonly outgoing: ServerResponse,
    private readonly limit: number,
    private readonly done: RelayDone,
  ) {
    // `on`, not `once` (which wraps the listener per command): finish() takes it off either way.
    outgoing.on('close', this.onClientClose);
  }

  // The client hung up before its answer was complete: the browser's request is aborted too.
  private readonly onClientClose = () => {
    if (!this.outgoing.writableFinished) this.abort?.();
  };

  private readonly onDrain = () => this.resume?.();

  onConnect(abort: (error?: Error) => void): void {
    this.abort = abort;
    if (this.outgoing.destroyed) abort();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true; // informational (W3C endpoints send none); the real answer follows
    if (mayMeanSessionGone(statusCode)) {
      this.held = { statusCode, rawHeaders, chunks: [], size: 0 };
      return true;
    }
    this.resume = resume;
    this.outgoing.writeHead(statusCode, rawClientResponseHeaders(rawHeaders));
    return true;
  }

  onData(chunk: Buffer): boolean {
    const { held } = this;
    if (held) {
      held.size += chunk.length;
      if (held.size > this.limit) throw new Error('the browser’s error answer is too large');
      held.chunks.push(chunk);
      return true;
    }
    // Backpressure: a slow client holds the browser's answer back instead of it piling up here.
    if (this.outgoing.write(chunk)) return true;
    this.outgoing.once('drain', this.onDrain);
    return false;
  }

  onComplete(): void {
    const { held } = this;
    if (!held) {
      this.outgoing.end();
      this.finish();
      return;
    }
    const text = Buffer.concat(held.chunks).toString('utf8');
    upstreamSessionGone(this.deps, this.claims, text).then(
      (gone) => {
        if (gone) return this.finish(gone);
        this.outgoing.writeHead(held.statusCode, rawClientResponseHeaders(held.rawHeaders));
        this.outgoing.end(text);
        this.finish();
      },
      (error: unknown) => this.finish(error),
    );
  }

  onError(error: Error): void {
    const { outgoing } = this;
    // Mid-answer, or the client is gone: nothing more can be said on this connection.
    if (outgoing.headersSent || outgoing.destroyed) {
      outgoing.destroy();
      this.finish();
      return;
    }
    this.finish(error);
  }

  private finish(failure?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.outgoing.off('close', this.onClientClose);
    this.outgoing.off('drain', this.onDrain);
    this.done(failure);
  }
}
