/**
 * Ports on one of this machine's loopback addresses, for the helpers (pasta) that forward into a browser's
 * network namespace: a port free now, and whether something accepts on a port yet. Both the local pools'
 * namespaces and the container pools' DevTools doors use them.
 */
import { createServer, Socket } from 'node:net';

/** A port of `host` that is free now; the caller's helper takes it at once, and a lost race fails its start. */
export function freePortOn(host: string): Promise<number> {
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
