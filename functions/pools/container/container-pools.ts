/**
 * What the Node server runs for container pools: the launcher, and before it the start-up sweep of what a
 * killed gridgate left (only on a machine whose config has container pools, so other servers never call an
 * engine). The server asks its warm containers to be kept and removes every container when it stops.
 */
import type { Dispatcher } from 'undici';
import type { Config } from '../../core/config';
import type { Logger } from '../../core/ports';
import { containerEngines } from './container-engines';
import { ContainerLauncher } from './container-launcher';
import type { ContainerPoolConfig } from './container-pool-config';
import { sweepContainers } from './container-sweep';

export interface ContainerPoolsOptions {
  config: Config;
  logger: Logger;
  agent?: Dispatcher;
  /** The config now (reloads included): warm containers' lifetimes are made of its timeouts. */
  current: () => Config;
  onUnexpectedExit: (handle: string, exit: { code?: number }) => void;
}

export async function startContainerPools(options: ContainerPoolsOptions): Promise<ContainerLauncher> {
  const engineFor = containerEngines();
  const pools = Object.values(options.config.pools).filter(
    (pool): pool is ContainerPoolConfig => pool.kind === 'container',
  );
  const engines = new Set(pools.map(engineFor));
  for (const engine of engines) {
    try {
      const containers = await sweepContainers(engine);
      if (containers > 0) options.logger.log('ORPHANS_REMOVED', { containers, engine: engine.name });
    } catch (error) {
      // No engine at all is said by the first session's failure; the server still serves its other pools.
      options.logger.log('BACKGROUND_TASK_FAILED', { task: 'container sweep', error: String(error) });
    }
  }
  return new ContainerLauncher({
    engineFor,
    logger: options.logger,
    agent: options.agent,
    onUnexpectedExit: options.onUnexpectedExit,
    timeouts: () => options.current().timeouts,
  });
}
