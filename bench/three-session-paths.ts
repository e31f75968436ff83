/**
 * What the session probes compare (session-cycle-probe.ts, chromium-type-probe.ts): a bare chromedriver, and
 * gridgate with `isolation` "namespace" and "none", each with the capabilities a client sends it; beside them a
 * loopback page server whose answer `page` writes.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { parseConfig } from '../functions/core/config';
import type { Logger } from '../functions/core/ports';
import { startGrid } from '../functions/entry/start-grid';
import { chromiumVersion } from '../functions/pools/local/ensure-chromium';
import { DirectChromedriver, type LocalPool } from './direct-chromedriver';

export interface SessionPath {
  name: 'direct' | 'gridgate namespace' | 'gridgate none';
  origin: string;
  capabilities: Record<string, unknown>;
}

export interface SessionPaths {
  paths: SessionPath[];
  pagePort: number;
  close(): Promise<void>;
}

export async function startSessionPaths(page: (request: IncomingMessage) => string): Promise<SessionPaths> {
  const server = createServer((request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end(page(request));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  const silent: Logger = { log: () => {} };
  const grids = await Promise.all(
    (['namespace', 'none'] as const).map(async (isolation) => ({
      isolation,
      grid: await startGrid(
        parseConfig({ port: 0, host: '127.0.0.1', isolation }, { builtInBrowserVersion: version }),
        randomBytes(32),
        silent,
      ),
    })),
  );
  const driver = await DirectChromedriver.start(
    parseConfig({}, { builtInBrowserVersion: version }).pools.local as LocalPool,
  );
  return {
    paths: [
      { name: 'direct', origin: driver.origin, capabilities: driver.capabilities },
      ...grids.map(({ isolation, grid }) => ({
        name: `gridgate ${isolation}` as const,
        origin: grid.url,
        capabilities: { browserName: 'chrome' },
      })),
    ],
    pagePort: (server.address() as { port: number }).port,
    async close() {
      await driver.stop();
      await Promise.all(grids.map(({ grid }) => grid.close()));
      server.close();
    },
  };
}
