/**
 * What the Node server's pools on this machine run on, made once at its start: the local and container
 * runtimes (sharing one place for recordings).
 */
import type { Dispatcher } from 'undici';
import type { Config } from '../core/config';
import type { PeriodicTask } from '../core/periodic-task';
import type { Logger, Metrics } from '../core/ports';
import {
  type ContainerPoolRuntime,
  startContainerPoolRuntime,
} from '../pools/container/container-pool-runtime';
import { type LocalPoolRuntime, startLocalPoolRuntime } from '../pools/local/local-pool-runtime';
import type { LaunchingParts } from './grid-wiring';

export interface NodeServerPoolsContext {
  /** The config at start-up. */
  config: Config;
  /** The config in use now (reloads swap it). */
  current: () => Config;
  logger: Logger;
  metrics: Metrics;
  agent: Dispatcher;
  /** A browser (a local one, or a container) that exited without being stopped. */
  onUnexpectedExit: (handle: string, exit: object) => void;
}

export interface NodeServerPools {
  local: LocalPoolRuntime;
  containers: ContainerPoolRuntime;
  /** What the one wiring (grid-wiring.ts) is given of them. */
  parts: Pick<LaunchingParts, 'local' | 'container'>;
  /** Whether this machine still runs the browser with this handle (a local one, or a container). */
  isRunning(handle: string): boolean;
  /** Stops every browser on this machine: sessions still being created too, and warm ones. */
  stopAll(): Promise<void>;
  /** Starts the periodic work (warm browsers, recordings past their retention). */
  runPeriodically(): PeriodicTask[];
}

export async function startNodeServerPools(context: NodeServerPoolsContext): Promise<NodeServerPools> {
  const { config, current, logger, metrics, agent, onUnexpectedExit } = context;
  const local = await startLocalPoolRuntime({ config, current, logger, metrics, onUnexpectedExit });
  const containers = await startContainerPoolRuntime({
    config,
    current,
    logger,
    agent,
    onUnexpectedExit,
    // Container sessions record as local ones do, into the same kept recordings.
    recordings: { recorder: local.sessionRecordings, kept: local.recordings },
  });
  return {
    local,
    containers,
    parts: {
      local: { runtime: local.runtime, recordings: local.recordings },
      container: { runtime: containers.runtime, recordings: containers.recordings },
    },
    isRunning: (handle) => local.launcher.isRunning(handle) || containers.launcher.isRunning(handle),
    stopAll: async () => {
      await Promise.all([local.launcher.stopAll(), containers.launcher.stopAll()]);
    },
    runPeriodically: () => [...local.runPeriodically(), ...containers.runPeriodically()],
  };
}
