/**
 * The real app (createApp) over real HTTP, as the Node server serves it: the given config, launchers and
 * session store behind the Node server's own listener (@hono/node-server loaded as it loads it, which the
 * app's relayed answers rely on: servers/node/app-listener.ts) on a free loopback port, proxying with
 * gridgate's own upstream agent; its WebSockets too when asked.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EndedSessions } from '../../functions/core/ended-sessions';
import type { GridDeps } from '../../functions/core/grid-deps';
import { systemClock } from '../../functions/core/ports';
import { SessionTokens } from '../../functions/core/session-token';
import { SlotQueue } from '../../functions/core/slot-queue';
import { createApp } from '../../functions/http/create-app';
import { POOL_TRAITS } from '../../functions/pools';
import { lazyAppListener } from '../../functions/servers/node/app-listener';
import { attachWebSocketProxy } from '../../functions/servers/node/websocket-proxy';
import { endAllSessions } from '../../functions/use-cases/expire-sessions';
import { createUpstreamAgent } from '../../functions/webdriver-client/upstream-client';

export interface ServedApp {
  /** http://127.0.0.1:<port> */
  url: string;
  deps: GridDeps;
  /** Ends every session (as a server shutdown does), then stops serving. */
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Serve WebSocket upgrades as the Node server does (websocket-proxy.ts): socket sessions, se:cdp, BiDi. */
  webSockets?: boolean;
}

export async function serveApp(
  parts: Pick<GridDeps, 'config' | 'runtimes' | 'sessions' | 'logger' | 'artifacts' | 'users'>,
  { webSockets = false }: ServeOptions = {},
): Promise<ServedApp> {
  const deps: GridDeps = {
    ...parts,
    poolTraits: POOL_TRAITS,
    queue: new SlotQueue(),
    ended: new EndedSessions(),
    tokens: new SessionTokens(randomBytes(32)),
    clock: systemClock,
    version: '0.0.0-test',
  };
  const agent = createUpstreamAgent();
  const app = createApp(deps, { agent });
  const server = createServer(lazyAppListener(async () => app.fetch, deps.logger));
  if (webSockets) attachWebSocketProxy(server, deps);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    deps,
    close: async () => {
      await endAllSessions(deps, 'server shutdown');
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await agent.close();
    },
  };
}
