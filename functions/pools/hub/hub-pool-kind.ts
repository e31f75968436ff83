/** The hub pool kind: an existing WebDriver hub (Selenium Grid, Selenoid, ggr) that gridgate routes to. */
import { hubPool } from '../../core/config-pools';
import type { PoolKind } from '../pool-kind';

export const hubPoolKind: PoolKind<'hub'> = {
  name: 'hub',
  schema: hubPool,
  traits: { remoteEnd: 'hub', boundToItsHead: false },
  load: async () => (await import('./hub-pool-runtime')).makeHubRuntime,
};
