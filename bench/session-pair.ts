/**
 * The sessions for the command benchmark: one on a bare chromedriver and one through gridgate, both
 * driving Chromium with the same flags (checked from the processes' command lines), on the same page;
 * plus a path straight to the chromedriver behind the gridgate session (GET /host/{id} says where),
 * which tells what gridgate adds on the very same browser; and nginx and a plain Node proxy in front of
 * that chromedriver, which tell how much of that any proxy, and any Node proxy, would add.
 */
import { compareFlags, type FlagComparison } from './chromium-flags';
import { type CommandPathName, openBenchPage, type SessionPath } from './command-latency';
import { DirectChromedriver, type LocalPool } from './direct-chromedriver';
import type { GridgateServer } from './gridgate-server';
import { type ReferenceProxies, startReferenceProxies } from './reference-proxies';
import type { WebDriverClient } from './webdriver-client';

export interface SessionPair {
  paths: Record<CommandPathName, SessionPath>;
  flags: FlagComparison;
  /** The processes whose trees serve each proxy and each browser, for their CPU time. */
  pids: { gridgate: number; direct: number; nginx: number; plainNode: number };
  /** Deletes both sessions and stops the direct chromedriver (gridgate stops its own on DELETE). */
  close(): Promise<void>;
}

export async function openSessionPair(
  client: WebDriverClient,
  grid: GridgateServer,
  pool: LocalPool,
): Promise<SessionPair> {
  const driver = await DirectChromedriver.start(pool);
  let proxies: ReferenceProxies | undefined;
  try {
    const gridgateSession = await client.newSession(grid.origin, { browserName: 'chrome' });
    const host = (await client.send(grid.origin, 'GET', `/host/${gridgateSession}`)).value as {
      address: string;
      browserSessionId: string;
    };
    proxies = await startReferenceProxies(`http://${host.address}`);
    const paths: Record<CommandPathName, SessionPath> = {
      direct: {
        name: 'direct',
        origin: driver.origin,
        sessionId: await client.newSession(driver.origin, driver.capabilities),
      },
      gridgate: { name: 'gridgate', origin: grid.origin, sessionId: gridgateSession },
      sameBrowser: {
        name: 'sameBrowser',
        origin: `http://${host.address}`,
        sessionId: host.browserSessionId,
      },
      nginx: { name: 'nginx', origin: proxies.nginx, sessionId: host.browserSessionId },
      plainNode: { name: 'plainNode', origin: proxies.plainNode, sessionId: host.browserSessionId },
    };
    await openBenchPage(client, paths.direct);
    await openBenchPage(client, paths.gridgate);
    const started = proxies;
    const close = async () => {
      await started.stop();
      await client.deleteSession(paths.gridgate.origin, paths.gridgate.sessionId);
      await client.deleteSession(paths.direct.origin, paths.direct.sessionId);
      await driver.stop();
    };
    const pids = { gridgate: grid.pid, direct: driver.pid, ...started.pids };
    return { paths, flags: compareFlags(driver.pid, grid.pid), pids, close };
  } catch (error) {
    await proxies?.stop();
    await driver.stop();
    throw error;
  }
}
