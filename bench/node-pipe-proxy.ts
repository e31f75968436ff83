/**
 * Entry of the floor for any Node process on the command path (node-floor-probe.ts): each client
 * connection piped byte for byte to a connection of its own to one chromedriver, nothing parsed, nothing
 * rewritten (chromedriver takes the client's Host, an IP literal). No proxy written in Node can do less.
 * Usage: node-pipe-proxy.ts UPSTREAM_ORIGIN PORT
 */
import { connect, createServer } from 'node:net';

const [upstream, port] = process.argv.slice(2);
if (!upstream || !port) throw new Error('usage: node-pipe-proxy.ts UPSTREAM_ORIGIN PORT');
const { hostname, port: upstreamPort } = new URL(upstream);

createServer((client) => {
  const browser = connect({ host: hostname, port: Number(upstreamPort), noDelay: true });
  client.setNoDelay(true);
  client.pipe(browser);
  browser.pipe(client);
  const close = () => {
    client.destroy();
    browser.destroy();
  };
  for (const socket of [client, browser]) {
    socket.on('error', close);
    socket.on('close', close);
  }
}).listen(Number(port), '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
