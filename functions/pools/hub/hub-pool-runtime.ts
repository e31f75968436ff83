/** The hub kind's runtime: the hub launcher, which also ends what a dead head's abandoned creations left at the hub. */
import type { HubPoolConfig } from '../../core/config';
import type { PoolRuntime } from '../../core/pool-runtime';
import { HubLauncher } from './hub-launcher';

export function hubRuntime(launcher = new HubLauncher()): PoolRuntime<HubPoolConfig> {
  return { launcher, abandoned: launcher };
}
