/**
 * ggr as it is deployed, for the browser parts: the router (proxy-ggr.ts) in front of the node that starts the
 * browser, here a bare chromedriver of its own (direct-chromedriver.ts). ggr calls every host at
 * `/wd/hub/session…`, so that chromedriver serves WebDriver there (`--url-base=/wd/hub`); its quota's version is
 * the browser's own, which ggr writes into the forwarded `browserVersion`.
 */
import { DirectChromedriver, type LocalPool } from './direct-chromedriver';
import { GGR_AUTHORIZATION, ggrAvailable, startGgr } from './proxy-ggr';

/** Where ggr's hosts serve WebDriver: ggr always calls this prefix. */
const GGR_HOST_URL_BASE = '/wd/hub';

export interface GgrBrowser {
  /** ggr's WebDriver URL (origin and /wd/hub), what a client is given. */
  hub: string;
  /** The direct path's capabilities: ggr matches `browserName` chrome and adds the quota's version itself. */
  capabilities: Record<string, unknown>;
  /** The headers of ggr's new-session route (Basic auth); its command route takes none. */
  newSessionHeaders: Record<string, string>;
  /** ggr's process, and its chromedriver's (whose tree holds the Chromium it starts). */
  pids: { ggr: number; chromedriver: number };
  /** Stops ggr, then the chromedriver and whatever browser it still has. */
  stop(): Promise<void>;
}

/** Why ggr is not measured, or undefined when its binary is there. */
export const ggrSkipReason = (): string | undefined =>
  ggrAvailable() ? undefined : 'no ggr binary at ../shared/peers/ggr/ggr';

/** Starts a chromedriver and ggr in front of it; both are registered with teardown.ts as they start. */
export async function startGgrBrowser(pool: LocalPool, chromiumVersion: string): Promise<GgrBrowser> {
  const driver = await DirectChromedriver.start(pool, { urlBase: GGR_HOST_URL_BASE });
  try {
    // A ggr that does not become ready is stopped by startGgr itself.
    const started = await startGgr(driver.origin, chromiumVersion);
    const router = started.process;
    return {
      hub: `${started.origin}${GGR_HOST_URL_BASE}`,
      capabilities: driver.capabilities,
      newSessionHeaders: { authorization: GGR_AUTHORIZATION },
      pids: { ggr: router.pid, chromedriver: driver.pid },
      stop: async () => {
        await router.stop();
        await driver.stop();
      },
    };
  } catch (error) {
    await driver.stop();
    throw error;
  }
}
