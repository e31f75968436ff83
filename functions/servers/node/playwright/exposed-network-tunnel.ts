/**
 * Everything of one Playwright session whose client exposes its network (exposed-network.ts): a listener
 * only the session's browser reaches, the SOCKS5 proxy on it, the client's tunnel behind that proxy, and the
 * rewrite that gives the server's browser contexts that proxy. It all ends with the session.
 */
import type { Server, Socket } from 'node:net';
import type { ExposedNetwork } from '../../../core/exposed-network';
import type { BrowserNetworks } from '../../../core/pool-runtime';
import type { ClientMessageCheck } from '../socket-relay';
import { serveBrowserProxy } from './browser-proxy';
import { ClientNetworkTunnel } from './client-network-tunnel';
import { contextProxy } from './context-proxy';

export interface ExposedNetworkTunnel {
  /** On the client's socket: announces the tunnel and takes the client's answers to it. */
  tunnel: ClientNetworkTunnel;
  /** On the Playwright server's DevTools socket: its contexts' proxy. */
  contexts: ClientMessageCheck;
  close(): Promise<void>;
}

/** Opens the tunnel for the browser `browserHandle`, its proxy listening in that browser's network. */
export async function openExposedNetworkTunnel(
  network: ExposedNetwork,
  browsers: BrowserNetworks,
  browserHandle: string,
): Promise<ExposedNetworkTunnel> {
  const listener = await browsers.listen(browserHandle);
  const tunnel = new ClientNetworkTunnel();
  const sockets = new Set<Socket>();
  serveBrowserProxy(listener.server, network, tunnel, sockets);
  return {
    tunnel,
    contexts: contextProxy(`socks5://${listener.address}`, network.proxyBypassList),
    async close() {
      tunnel.close();
      for (const socket of sockets) socket.destroy();
      await closeListener(listener.server);
    },
  };
}

function closeListener(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
