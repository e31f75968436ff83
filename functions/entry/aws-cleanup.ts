/**
 * The cleanup pass over AWS's browser fleets: the ECS tasks of every ecs pool and, given their API, the
 * pods of every eks pool. The cleanup Lambda runs it on its schedule; tests run it with their own fakes.
 */
import type { ECSClient } from '@aws-sdk/client-ecs';
import type { BrowserFleet } from '../core/browser-fleet';
import { EcsFleet } from '../pools/ecs/ecs-fleet';
import type { WarmPoolDeps } from '../pools/ecs/ecs-warm-pool';
import { EksFleet } from '../pools/eks/eks-fleet';
import type { EksPodApi } from '../pools/eks/eks-pod-api';
import type { DeployedEksPool } from '../pools/eks/eks-pool-check';
import type { KeepPodLog } from '../pools/eks/pod-log-keeper';
import { type CleanupPassDeps, type CleanupPassOptions, runCleanupPass } from '../use-cases/cleanup-pass';
import type { CleanupReport } from '../use-cases/cleanup-report';

export interface OrphanCleanupDeps extends CleanupPassDeps {
  ecs: ECSClient;
  /** Waits between StopTask calls (rate bound); tests pass one that only records. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * The pod API of an eks pool's cluster, and how a session's pod's browser log is kept before the pod is
   * deleted (pools/eks/pod-log-keeper.ts); without them eks pools are not swept.
   */
  pods?: { api: (pool: DeployedEksPool) => EksPodApi; keepLog: KeepPodLog };
  /** The warm pool store and demand; without it warm tasks are neither started nor registered. */
  warm?: WarmPoolDeps;
}

export interface OrphanCleanupOptions extends CleanupPassOptions {
  /** At most this many StopTask calls per second, over all clusters. */
  stopsPerSecond?: number;
}

export type { CleanupReport };

export function runOrphanCleanup(
  deps: OrphanCleanupDeps,
  { stopsPerSecond, ...options }: OrphanCleanupOptions = {},
): Promise<CleanupReport> {
  const { ecs, sessions, config, clock, sleep, warm, pods } = deps;
  const fleets: BrowserFleet[] = [
    new EcsFleet({ ecs, sessions, config, clock, sleep, stopsPerSecond, warm }),
  ];
  if (pods) fleets.push(new EksFleet(pods.api, pods.keepLog));
  return runCleanupPass(deps, fleets, options);
}
