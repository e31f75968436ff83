/**
 * Launcher for hub pools: an existing WebDriver hub starts the browser itself, so starting here only
 * says where the hub is and what to ask it for; stopping ends the hub's session unless the client did, and
 * a session whose creation a dead head abandoned is found by its key and ended (abandoned-hub-sessions.ts).
 */

import { request } from 'undici';
import { upstreamEndpoint } from '../../core/browser-network';
import type { Capabilities } from '../../core/capabilities';
import type { HubPoolConfig, PoolConfig } from '../../core/config';
import type { AbandonedSessions } from '../../core/pool-runtime';
import type { LaunchedBrowser, Launcher, LaunchRequest, StopContext } from '../../core/ports';
import { abandonedSessions, CREATION_TAG } from './abandoned-hub-sessions';
import { hubAddress } from './hub-endpoint';

const STOP_TIMEOUT_MS = 10_000;

export class HubLauncher implements Launcher<HubPoolConfig>, AbandonedSessions<HubPoolConfig> {
  async start({
    pool,
    key,
    capabilities,
    browserVersion,
    signal,
  }: LaunchRequest<HubPoolConfig>): Promise<LaunchedBrowser> {
    signal.throwIfAborted();
    return {
      address: hubAddress(pool.url),
      handle: '',
      // The key goes last, so a client's own `gridgate:creation` cannot name another session.
      capabilities: { ...hubCapabilities(capabilities, browserVersion), [CREATION_TAG]: key },
    };
  }

  /**
   * Ends the hub's sessions asked for under these keys, which no head will record: the hub's /status lists
   * them (Selenium Grid 4's does, with the capabilities asked); a hub that lists nothing ends nothing here.
   */
  async endAbandoned(pool: PoolConfig, keys: readonly string[]): Promise<Map<string, string>> {
    if (pool.kind !== 'hub' || keys.length === 0) return new Map();
    const endpoint = upstreamEndpoint(pool, hubAddress(pool.url));
    const response = await request(`${endpoint.origin}${endpoint.basePath}/status`, {
      headers: endpoint.authorization ? { authorization: endpoint.authorization } : {},
      headersTimeout: STOP_TIMEOUT_MS,
      bodyTimeout: STOP_TIMEOUT_MS,
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new Error(`the hub answered ${response.statusCode} to GET /status`);
    }
    const abandoned = abandonedSessions(await response.body.json(), new Set(keys));
    for (const [upstreamId, key] of abandoned) {
      await this.stop('', { key, pool, reason: 'creation failed', upstreamId });
    }
    return abandoned;
  }

  /**
   * Ends the hub's session when gridgate ends it — idle timeout, maximum
   * age, shutdown, a client gone mid-creation — so the hub's slot does not wait for the hub's own
   * timeout. A client's DELETE was already forwarded to the hub, so that one is not sent twice.
   */
  async stop(_handle: string, context: StopContext): Promise<void> {
    if (context.pool.kind !== 'hub' || context.reason === 'deleted' || !context.upstreamId) return;
    const endpoint = upstreamEndpoint(context.pool, hubAddress(context.pool.url));
    const response = await request(
      `${endpoint.origin}${endpoint.basePath}/session/${encodeURIComponent(context.upstreamId)}`,
      {
        method: 'DELETE',
        headers: endpoint.authorization ? { authorization: endpoint.authorization } : {},
        headersTimeout: STOP_TIMEOUT_MS,
        bodyTimeout: STOP_TIMEOUT_MS,
      },
    );
    await response.body.dump();
    // 404: the hub had ended it already.
    if (response.statusCode >= 400 && response.statusCode !== 404) {
      throw new Error(`the hub answered ${response.statusCode} to DELETE`);
    }
  }
}

/**
 * What the hub is asked for: the client's capabilities, with the version the catalog resolved ("156" →
 * "156.0") as ggr does; an empty version is never sent, since chromedriver refuses it (ggr #351, #354).
 */
export function hubCapabilities(requested: Capabilities, browserVersion: string | undefined): Capabilities {
  const { browserVersion: asked, ...rest } = requested;
  if (browserVersion) return { ...rest, browserVersion };
  return typeof asked === 'string' && asked !== '' && browserVersion === undefined
    ? { ...rest, browserVersion: asked }
    : rest;
}
