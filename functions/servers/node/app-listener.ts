/**
 * The Hono app as a Node request listener, with the app and @hono/node-server loaded on the first request
 * the app serves. That module reads the runtime's fetch classes (Request, Response, Headers) when it loads,
 * and the first read makes Node load its own bundled undici (its fetch implementation: ~4 MiB of RSS per
 * process, measured with bench/memory-benchmark.ts); the app is Hono, its routes and the status page's
 * scripts, built by `loadApp` (a dynamic import, so that the build keeps them in a chunk of their own). A
 * server at idle, and a worker process that only relays commands on the Node-native path
 * (command-fast-path.ts), never need them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { getRequestListener } from '@hono/node-server';
import type { Logger } from '../../core/ports';

type FetchCallback = Parameters<typeof getRequestListener>[0];
type Listener = ReturnType<typeof getRequestListener>;

export function lazyAppListener(
  loadApp: () => Promise<FetchCallback>,
  logger: Logger,
): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  let listener: Listener | undefined;
  let loading: Promise<Listener> | undefined;
  // The app's listener answers its own failures; a rejection means the connection is past saving.
  const serve = (serveApp: Listener, incoming: IncomingMessage, outgoing: ServerResponse) => {
    serveApp(incoming, outgoing).catch(() => outgoing.destroy());
  };
  return (incoming, outgoing) => {
    if (listener) return serve(listener, incoming, outgoing);
    // Until it is loaded the request waits, its body unread (a paused stream keeps every byte). The
    // adapter's "answered already" marker (http/forward-command.ts) is made first, with the runtime's own
    // Response: made once the listener has put the adapter's Response class in its place (as a later first
    // import would), it is one of the adapter's cached responses, which the adapter writes out as a second
    // head after the relayed answer (ERR_HTTP_HEADERS_SENT) instead of knowing it was sent.
    loading ??= import('@hono/node-server/utils/response')
      .then(() => import('@hono/node-server'))
      .then(async (node) => {
        listener = node.getRequestListener(await loadApp());
        return listener;
      });
    let closed = false;
    outgoing.once('close', () => {
      closed = true;
    });
    loading.then(
      (loaded) => {
        // The adapter learns that a client left from the response's 'close', which it listens for from
        // the moment it takes a request: a request whose client left while the adapter loaded would
        // wait for a body that never comes. Nobody is left to answer; it is logged as the app logs one.
        if (closed) logClientGone(logger, incoming);
        else serve(loaded, incoming, outgoing);
      },
      () => outgoing.destroy(),
    );
  };
}

/** As the app's onError logs a client that left mid-request (http/create-app.ts). */
function logClientGone(logger: Logger, incoming: IncomingMessage): void {
  const path = new URL(incoming.url ?? '/', 'http://gridgate').pathname;
  logger.log('CLIENT_GONE', { method: incoming.method, path });
}
