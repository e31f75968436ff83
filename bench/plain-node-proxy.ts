/**
 * Entry of the reference proxy for the command benchmark: the least a Node reverse proxy can do in
 * front of one chromedriver (node:http in, undici's stream API out, keep-alive, Host rewritten,
 * hop-by-hop headers dropped), with none of gridgate's work (no routing, no session ID, no auth).
 * It runs in its own process under the same runtime as gridgate, so the difference between the two
 * is gridgate's own cost, and the difference between it and nginx is the Node runtime's.
 * Usage: plain-node-proxy.ts UPSTREAM_ORIGIN PORT
 */
import { createServer } from 'node:http';
import { Agent } from 'undici';

const [upstream, port] = process.argv.slice(2);
if (!upstream || !port) throw new Error('usage: plain-node-proxy.ts UPSTREAM_ORIGIN PORT');

const agent = new Agent({ connections: 4, keepAliveTimeout: 30_000 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'upgrade', 'te']);

function forwardable(headers: Record<string, string | string[] | undefined>) {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

createServer((incoming, outgoing) => {
  const method = incoming.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  agent
    .stream(
      {
        origin: upstream,
        path: incoming.url ?? '/',
        method: method as 'GET',
        headers: forwardable(incoming.headers),
        body: hasBody ? incoming : null,
      },
      ({ statusCode, headers }) => {
        outgoing.writeHead(statusCode, forwardable(headers));
        return outgoing;
      },
    )
    .catch((error: Error) => {
      if (outgoing.headersSent) outgoing.destroy();
      else outgoing.writeHead(502).end(error.message);
    });
}).listen(Number(port), '127.0.0.1');
// Exits on SIGTERM rather than being killed by it, so that a profile asked for (--cpu-prof) is written.
process.once('SIGTERM', () => process.exit(0));
