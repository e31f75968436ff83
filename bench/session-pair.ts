/**
 * The sessions for the command benchmark: one on a bare chromedriver and one through gridgate, both
 * driving Chromium with the same flags (checked from the processes' command lines), on the same page;
 * plus a path straight to the chromedriver behind the gridgate session (GET /host/{id} says where),
 * which tells what gridgate adds on the very same browser; and nginx and a plain Node proxy in front of
 * that chromedriver, which tell how much of that any proxy, and any Node proxy, would add. And, where its
 * binary is there, a session through ggr to a chromedriver and browser of its own (ggr-browser.ts), created
 * with the direct path's capabilities: the router gridgate replaces, as it is deployed.
 */
import { compareFlags, type FlagComparison } from './chromium-flags';
import { openBenchPage, type PerCommandPath, type SessionPath } from './command-latency';
import { DirectChromedriver, type LocalPool } from './direct-chromedriver';
import { type GgrBrowser, ggrSkipReason, startGgrBrowser } from './ggr-browser';
import type { GridgateServer } from './gridgate-server';
import { type ReferenceProxies, startReferenceProxies } from './reference-proxies';
import type { WebDriverClient } from './webdriver-client';

export interface SessionPair {
  paths: PerCommandPath<SessionPath>;
  flags: FlagComparison;
  /** ggr's browser's flags against the direct one's, when ggr is measured. */
  ggrFlags?: { identical: boolean; direct: string[]; ggr: string[] };
  /** Why there is no ggr path. */
  ggrSkipped?: string;
  /** The processes whose trees serve each proxy and each browser, for their CPU time. */
  pids: SessionPairPids;
  /** Deletes the sessions and stops the chromedrivers and ggr (gridgate stops its own browser on DELETE). */
  close(): Promise<void>;
}

export interface SessionPairPids {
  gridgate: number;
  direct: number;
  nginx: number;
  plainNode: number;
  /** ggr's process and its chromedriver's (with the Chromium below it). */
  ggr?: number;
  ggrBrowser?: number;
}

export async function openSessionPair(
  client: WebDriverClient,
  grid: GridgateServer,
  pool: LocalPool,
): Promise<SessionPair> {
  const driver = await DirectChromedriver.start(pool);
  let proxies: ReferenceProxies | undefined;
  let ggr: GgrBrowser | undefined;
  try {
    const gridgateSession = await client.newSession(grid.origin, { browserName: 'chrome' });
    const host = (await client.send(grid.origin, 'GET', `/host/${gridgateSession}`)).value as {
      address: string;
      browserSessionId: string;
    };
    proxies = await startReferenceProxies(`http://${host.address}`);
    const ggrSkipped = ggrSkipReason();
    if (!ggrSkipped) ggr = await startGgrBrowser(pool, grid.chromiumVersion);
    const paths: PerCommandPath<SessionPath> = {
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
      ...(ggr && {
        ggr: {
          name: 'ggr',
          origin: ggr.hub,
          sessionId: await client.newSession(ggr.hub, ggr.capabilities, ggr.newSessionHeaders),
        },
      }),
    };
    await openBenchPage(client, paths.direct);
    await openBenchPage(client, paths.gridgate);
    if (paths.ggr) await openBenchPage(client, paths.ggr);
    const started = proxies;
    const startedGgr = ggr;
    const close = async () => {
      await started.stop();
      await client.deleteSession(paths.gridgate.origin, paths.gridgate.sessionId);
      await client.deleteSession(paths.direct.origin, paths.direct.sessionId);
      if (paths.ggr) await client.deleteSession(paths.ggr.origin, paths.ggr.sessionId);
      await startedGgr?.stop();
      await driver.stop();
    };
    const pids = {
      gridgate: grid.pid,
      direct: driver.pid,
      ...started.pids,
      ...(startedGgr && { ggr: startedGgr.pids.ggr, ggrBrowser: startedGgr.pids.chromedriver }),
    };
    return {
      paths,
      flags: compareFlags(driver.pid, grid.pid),
      ...(startedGgr ? { ggrFlags: ggrFlags(driver.pid, startedGgr.pids.chromedriver) } : { ggrSkipped }),
      pids,
      close,
    };
  } catch (error) {
    await proxies?.stop();
    await ggr?.stop();
    await driver.stop();
    throw error;
  }
}

function ggrFlags(directRoot: number, ggrRoot: number): SessionPair['ggrFlags'] {
  const { identical, direct, gridgate: ggr } = compareFlags(directRoot, ggrRoot);
  return { identical, direct, ggr };
}
