/**
 * Launcher for hub pools: an existing WebDriver hub starts the browser itself, so starting here only
 * says where the hub is and what to ask it for; stopping ends the hub's session unless the client did.
 */

import { request } from 'undici';
import { hubAddress, upstreamEndpoint } from '../../core/browser-network';
import type { Capabilities } from '../../core/capabilities';
import type { LaunchedBrowser, Launcher, LaunchRequest, StopContext } from '../../core/ports';

const STOP_TIMEOUT_MS = 10_000;

export class HubLauncher implements Launcher {
  async start({ pool, capabilities, browserVersion, signal }: LaunchRequest): Promise<LaunchedBrowser> {
    if (pool.kind !== 'hub') throw new Error(`HubLauncher cannot start a ${pool.kind} pool`);
    signal.throwIfAborted();
    return {
      address: hubAddress(pool.url),
      handle: '',
      capabilities: hubCapabilities(capabilities, browserVersion),
    };
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
