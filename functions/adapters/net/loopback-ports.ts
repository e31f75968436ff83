/**
 * Ports on one of this machine's loopback addresses, for the helpers (pasta) that forward into a browser's
 * network namespace: a port free now, and whether something accepts on a port yet. Both the local pools'
 * namespaces and the container pools' DevTools doors use them.
 */
import { createServer, Socket } from 'node:net';

// A port handed out stays this process's for this long: its taker binds it well within it (or fails its start
// anyway), and the system, which may give a port just closed to the next bind(0) (seen: the same port twice in
// a row), cannot give it to another of this process's helpers meanwhile (pasta refuses a port in use, and the
// same port twice: "Overlapping port specifier").
const HANDED_OUT_MS = 60_000;
const handedOut = new Map<string, number>();

/**
 * A port of `host` that is free now and that this process has not handed out lately; the caller's helper
 * takes it at once, and a race lost to another process fails its start.
 */
export async function freePortOn(host: string): Promise<number> {
  const now = Date.now();
  for (const [key, until] of handedOut) if (until <= now) handedOut.delete(key);
  for (;;) {
    const port = await systemPortOn(host);
    const key = `${host}:${port}`;
    if (handedOut.has(key)) continue;
    handedOut.set(key, now + HANDED_OUT_MS);
    return port;
  }
}

/** A port the system picks for a bind to `host`:0, closed again. */
function systemPortOn(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts a connection on `host`:`port` now. */
export function acceptsConnections(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, host);
  });
}
