/**
 * What a worker process of the Node server serves itself of the local kind's runtime while its primary starts
 * the browsers: the bounds of the session folders, named after the primary's pid, which the CDP commands served
 * there are held to and where a Playwright server started there keeps its files; and the way into a browser's
 * network, which any process of this machine may open.
 */
import type { LocalPoolConfig } from '../../core/config';
import type { PoolRuntime } from '../../core/pool-runtime';
import { localBrowserNetworks } from './browser-network-listener';
import { sessionFolderBounds } from './session-folder-bounds';

export function localWorkerParts(primaryPid: number): Omit<PoolRuntime<LocalPoolConfig>, 'launcher'> {
  return { hostPaths: sessionFolderBounds(primaryPid), network: localBrowserNetworks };
}
