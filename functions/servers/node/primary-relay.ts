/**
 * A worker process passes every request it does not serve itself (new sessions, DELETE, /status, /ping,
 * the status page, recordings, /metrics…) to its primary over the primary's Unix socket, streamed both
 * ways, the client's own headers kept (Host, credentials) and its address added: the primary then answers
 * as if the client had asked it. A client that leaves aborts the relayed request, so a new session the
 * client gave up on is abandoned there as it would be in one process.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Dispatcher, Pool } from 'undici';
import { WebDriverError } from '../../core/errors';
import { clientResponseHeaders } from '../../webdriver-client/upstream-client';

/** The client's address, as the worker saw it; set by workers only (the primary's socket is theirs alone). */
export const CLIENT_ADDRESS_HEADER = 'x-gridgate-client-address';

export class PrimaryRelay {
  private readonly pool: Pool;

  constructor(socketPath: string) {
    // A new session may wait for a slot and a browser for as long as the config allows: no timeouts here.
    this.pool = new Pool('http://gridgate-primary', { socketPath, headersTimeout: 0, bodyTimeout: 0 });
  }

  pass(req: IncomingMessage, res: ServerResponse): void {
    // Only hop-by-hop headers go, as on any hop; the address header is the worker's to set, never a client's.
    const headers = clientResponseHeaders(req.headers);
    delete headers.expect; // Node answered 100-continue already
    if (req.socket.remoteAddress) headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress;
    const clientGone = new EventEmitter();
    res.once('close', () => res.writableFinished || clientGone.emit('abort'));
    const method = (req.method ?? 'GET') as Dispatcher.HttpMethod;
    const hasBody =
      method !== 'GET' &&
      method !== 'HEAD' &&
      (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0);
    this.pool
      .stream(
        { path: req.url ?? '/', method, headers, body: hasBody ? req : null, signal: clientGone },
        (answer) => {
          res.writeHead(answer.statusCode, clientResponseHeaders(answer.headers));
          return res;
        },
      )
      .catch(() => {
        if (res.headersSent || res.destroyed) return void res.destroy();
        const error = new WebDriverError('unknown error', "the grid's primary process could not be reached", {
          status: 502,
        });
        res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(error.toBody()));
      });
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

type NodeFetch = (
  request: Request,
  env: { incoming: IncomingMessage; outgoing: ServerResponse; clientAddress?: string },
) => unknown;

/**
 * The primary's side: each relayed request reaches the app with the client's address as the worker saw
 * it (http/client-address.ts), so limits that fall on one sender still do.
 */
export function relayedRequests<F extends NodeFetch>(fetch: F): F {
  return ((request, env) => {
    const address = env.incoming.headers[CLIENT_ADDRESS_HEADER];
    return fetch(request, { ...env, clientAddress: typeof address === 'string' ? address : undefined });
  }) as F;
}
