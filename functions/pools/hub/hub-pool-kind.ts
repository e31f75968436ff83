/** The hub pool kind: an existing WebDriver hub (Selenium Grid, Selenoid, ggr) that gridgate routes to. */
import type { PoolKind } from '../pool-kind';

export const hubPoolKind: PoolKind<'hub'> = {
  name: 'hub',
  // Whether a session is recorded is the hub's to decide: the client's ask is passed to it.
  traits: { remoteEnd: 'hub', boundToItsHead: false, recordsVideo: () => true },
  load: async () => (await import('./hub-pool-runtime')).makeHubRuntime,
};
