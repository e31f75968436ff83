/**
 * What a Node server's container pools run on, made once at its start: the sweep of what a killed gridgate
 * left (only on a machine whose config has container pools, so other servers never call an engine), the
 * launcher, the sessions' artifacts (their containers' output while they run, then their kept recordings),
 * and the periodic work (warm containers).
 */
import type { Dispatcher } from 'undici';
import type { ArtifactSource } from '../../core/artifact-ports';
import type { Config, ContainerPoolConfig } from '../../core/config';
import { type PeriodicTask, runEvery } from '../../core/periodic-task';
import type { PoolRuntime } from '../../core/pool-runtime';
import type { Logger } from '../../core/ports';
import type { KindRuntime, RecordingsHere, RuntimeContext } from '../pool-kind';
import { containerEngines } from './container-engines';
import { ContainerLauncher } from './container-launcher';
import { containerArtifacts } from './container-logs';
import { sweepContainers } from './container-sweep';
import { sweepDoors } from './devtools-door';

// How soon a reload's new `warm` counts (or a warm container that died) are acted on.
const WARM_CHECK_MS = 1000;

export interface ContainerPoolRuntime {
  launcher: ContainerLauncher;
  /** The kind's runtime for GridDeps: that launcher and the parts it also plays (containerRuntime). */
  runtime: PoolRuntime<ContainerPoolConfig>;
  /** Container sessions' logs (their containers' output) while they run, then what they recorded. */
  recordings: ArtifactSource;
  /** Starts the periodic work; it reads the config at every tick, so a reload's `warm` counts take effect. */
  runPeriodically(): PeriodicTask[];
}

export interface ContainerPoolContext {
  /** The config at start-up: the pools whose engines are swept. */
  config: Config;
  /** The config in use now (reloads swap it): warm containers' lifetimes are made of its timeouts. */
  current: () => Config;
  logger: Logger;
  agent?: Dispatcher;
  /** A container that exited without being removed: its session is over. */
  onUnexpectedExit: (handle: string, exit: { code?: number }) => void;
  /** Sessions' recordings (local sessions' own), and where they are kept once ended; none: no recordings. */
  recordings?: RecordingsHere;
}

export async function startContainerPoolRuntime(
  context: ContainerPoolContext,
): Promise<ContainerPoolRuntime> {
  const { config, current, logger } = context;
  const engineFor = containerEngines();
  const pools = Object.values(config.pools).filter(
    (pool): pool is ContainerPoolConfig => pool.kind === 'container',
  );
  for (const engine of new Set(pools.map(engineFor))) {
    try {
      const containers = await sweepContainers(engine);
      if (containers > 0) logger.log('ORPHANS_REMOVED', { containers, engine: engine.name });
    } catch (error) {
      // No engine at all is said by the first session's failure; the server still serves its other pools.
      logger.log('BACKGROUND_TASK_FAILED', { task: 'container sweep', error: String(error) });
    }
  }
  // After the containers: a door's name kept its namespace, and its pasta, past its container's end.
  const doors = pools.length > 0 ? await sweepDoors() : 0;
  if (doors > 0) logger.log('ORPHANS_REMOVED', { namespaces: doors });
  const launcher = new ContainerLauncher({
    engineFor,
    logger,
    agent: context.agent,
    onUnexpectedExit: context.onUnexpectedExit,
    timeouts: () => current().timeouts,
    ...(context.recordings ? { recordings: context.recordings.recorder } : {}),
  });
  const keepWarm = () => launcher.keepWarm(Object.values(current().pools));
  const runPeriodically = () => {
    keepWarm().catch((error: unknown) =>
      logger.log('BACKGROUND_TASK_FAILED', { task: 'warm containers', error: String(error) }),
    );
    return [runEvery('warm containers', WARM_CHECK_MS, keepWarm, logger)];
  };
  return {
    launcher,
    runtime: containerRuntime(launcher),
    recordings: containerArtifacts(launcher, context.recordings?.kept),
    runPeriodically,
  };
}

/**
 * The container kind's runtime as the wiring makes it (container-pool-kind.ts): the runtime, its sessions'
 * logs while they run and then what they recorded (into the local kind's recordings, given in the context),
 * and its containers here.
 */
export async function makeContainerRuntime(
  context: RuntimeContext,
): Promise<KindRuntime<ContainerPoolConfig>> {
  const containers = await startContainerPoolRuntime(context);
  return {
    runtime: containers.runtime,
    artifacts: containers.recordings,
    here: {
      isRunning: (handle) => containers.launcher.isRunning(handle),
      stopAll: () => containers.launcher.stopAll(),
      runPeriodically: containers.runPeriodically,
      ofSessionsEndedElsewhere: () => containers.launcher.sessions(),
    },
  };
}

/**
 * The container kind's runtime: the container launcher, which also counts its warm containers, opens a
 * session's DevTools door and recording once its browser answered, and says where its noVNC is published.
 */
export function containerRuntime(launcher: ContainerLauncher): PoolRuntime<ContainerPoolConfig> {
  return { launcher, warm: launcher, opener: launcher, devtools: launcher, vnc: launcher };
}
