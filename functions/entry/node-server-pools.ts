/**
 * What the Node server's pools run on, made once at its start: the local and container runtimes on this
 * machine (sharing one place for recordings), where a deployment keeps ecs sessions' recordings, and the eks
 * launcher and pod API of pools that name a kubeconfig (the Kubernetes client loaded with the first call).
 */
import type { Dispatcher } from 'undici';
import type { ArtifactSession } from '../core/artifact-ports';
import type { Config, EksPoolConfig, PoolConfig } from '../core/config';
import { madeOnFirstUse } from '../core/made-on-first-use';
import type { PeriodicTask } from '../core/periodic-task';
import type { Launcher, Logger, Metrics } from '../core/ports';
import {
  type ContainerPoolRuntime,
  startContainerPoolRuntime,
} from '../pools/container/container-pool-runtime';
import { ecsRecordings } from '../pools/ecs/ecs-recordings';
import type { EksPodApi } from '../pools/eks/eks-pod-api';
import { type KeepPodLog, podLogKeeper } from '../pools/eks/pod-log-keeper';
import { type LocalPoolRuntime, startLocalPoolRuntime } from '../pools/local/local-pool-runtime';
import { type AwsAdapters, onFirstUse } from './aws-adapters';
import { ecsRecordingPlaces } from './deployed-config';
import type { LaunchingParts } from './grid-wiring';

export interface NodeServerPoolsContext {
  /** The config at start-up. */
  config: Config;
  /** The config in use now (reloads swap it). */
  current: () => Config;
  logger: Logger;
  metrics: Metrics;
  agent: Dispatcher;
  aws: AwsAdapters;
  /** GRIDGATE_DEPLOYMENT's text: where the stack keeps ecs sessions' recordings. */
  deployment?: string;
  /** The pool a session ran in, retired ones included (the grid's, made after this). */
  poolOf: (session: ArtifactSession) => PoolConfig | undefined;
  /** A browser (a local one, or a container) that exited without being stopped. */
  onUnexpectedExit: (handle: string, exit: object) => void;
}

export interface NodeServerPools {
  local: LocalPoolRuntime;
  containers: ContainerPoolRuntime;
  /** What the one wiring (grid-wiring.ts) is given of them. */
  parts: Pick<
    LaunchingParts,
    'local' | 'container' | 'ecsRecordings' | 'kubeconfigEks' | 'kubeconfigPodApis'
  >;
  /** Whether this machine still runs the browser with this handle (a local one, or a container). */
  isRunning(handle: string): boolean;
  /** Stops every browser on this machine: sessions still being created too, and warm ones. */
  stopAll(): Promise<void>;
  /** Starts the periodic work (warm browsers, recordings past their retention). */
  runPeriodically(): PeriodicTask[];
}

export async function startNodeServerPools(context: NodeServerPoolsContext): Promise<NodeServerPools> {
  const { config, current, logger, metrics, agent, aws, onUnexpectedExit } = context;
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
  // ecs sessions' videos and browser logs where the stack keeps them, as the router Lambda reads them: a head
  // of the service or Web Function front door is given the same GRIDGATE_DEPLOYMENT and the same grants.
  const ecs = ecsRecordings(ecsRecordingPlaces(context.deployment), context.poolOf, aws.logsClient);
  // eks pools that name a kubeconfig: one client per file and context, for their launcher and their logs.
  const kubeconfigPods = kubeconfigPodApisOnFirstUse();
  const keepLog = podLogKeeper(logger, aws.s3Client);
  return {
    local,
    containers,
    parts: {
      local: { runtime: local.runtime, recordings: local.recordings },
      container: { runtime: containers.runtime, recordings: containers.recordings },
      ...(ecs ? { ecsRecordings: ecs } : {}),
      kubeconfigEks: kubeconfigEksLauncher(kubeconfigPods, { agent, logger, metrics, keepLog }),
      kubeconfigPodApis: kubeconfigPods,
    },
    isRunning: (handle) => local.launcher.isRunning(handle) || containers.launcher.isRunning(handle),
    stopAll: async () => {
      await Promise.all([local.launcher.stopAll(), containers.launcher.stopAll()]);
    },
    runPeriodically: () => [...local.runPeriodically(), ...containers.runPeriodically()],
  };
}

/** The pod API of eks pools that name a kubeconfig: the Kubernetes client loads with the first call. */
function kubeconfigPodApisOnFirstUse(): () => Promise<(pool: EksPoolConfig) => EksPodApi> {
  return madeOnFirstUse(async () => (await import('../pools/eks/eks-kubeconfig')).kubeconfigPodApis());
}

/** The launcher of eks pools that name a kubeconfig: loaded with such a pool's first pod. */
function kubeconfigEksLauncher(
  podApis: () => Promise<(pool: EksPoolConfig) => EksPodApi>,
  context: { agent: Dispatcher; logger: Logger; metrics: Metrics; keepLog: KeepPodLog },
): Launcher {
  return onFirstUse(async () => {
    const [{ EksLauncher }, podApi] = await Promise.all([import('../pools/eks/eks-launcher'), podApis()]);
    return new EksLauncher({ podApi, ...context });
  });
}
