/**
 * The hub kind's runtime: the hub launcher, which also ends what a dead head's abandoned creations left at the
 * hub, and the sessions' videos and logs, which come from their hubs.
 */
import type { HubPoolConfig } from '../../core/config';
import type { PoolRuntime } from '../../core/pool-runtime';
import type { KindRuntime, RuntimeContext } from '../pool-kind';
import { HubArtifacts } from './hub-artifacts';
import { HubLauncher } from './hub-launcher';

export function hubRuntime(launcher = new HubLauncher()): PoolRuntime<HubPoolConfig> {
  return { launcher, abandoned: launcher };
}

export async function makeHubRuntime({ poolOf, agent }: RuntimeContext): Promise<KindRuntime<HubPoolConfig>> {
  return { runtime: hubRuntime(), artifacts: new HubArtifacts(poolOf, agent) };
}
