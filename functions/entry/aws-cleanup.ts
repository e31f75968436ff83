/**
 * The cleanup pass over AWS's browser fleets: the ECS tasks of every ecs pool and, given their API, the
 * pods of every eks pool; then, given a deleter, the videos their recorders uploaded that sessions were not
 * to keep (use-cases/delete-unkept-videos.ts). The cleanup Lambda runs it on its schedule; tests run it with
 * their own fakes.
 */
import type { ECSClient } from '@aws-sdk/client-ecs';
import type { BrowserFleet } from '../core/browser-fleet';
import type { VideoDeleter, VideoPlace, VideoPlaceOf } from '../core/unkept-videos';
import { EcsFleet } from '../pools/ecs/ecs-fleet';
import { ecsVideoPlace } from '../pools/ecs/ecs-recordings';
import { DEFAULT_INTERVAL_MS, type WarmPoolDeps } from '../pools/ecs/ecs-warm-pool';
import { EksFleet } from '../pools/eks/eks-fleet';
import type { EksPodApi } from '../pools/eks/eks-pod-api';
import type { DeployedEksPool } from '../pools/eks/eks-pool-check';
import { eksVideoPlace } from '../pools/eks/eks-recordings';
import type { KeepPodLog } from '../pools/eks/pod-log-keeper';
import { type CleanupPassDeps, type CleanupPassOptions, runCleanupPass } from '../use-cases/cleanup-pass';
import type { CleanupReport } from '../use-cases/cleanup-report';
import { deleteUnkeptVideos } from '../use-cases/delete-unkept-videos';

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
  /**
   * What deletes the videos sessions were not to keep, and the stack's recordings bucket (where ecs pools'
   * recorders upload; eks pools name theirs); without it none are deleted.
   */
  videos?: { deleter: VideoDeleter; recordings?: VideoPlace };
}

export interface OrphanCleanupOptions extends CleanupPassOptions {
  /** At most this many StopTask calls per second, over all clusters. */
  stopsPerSecond?: number;
}

export type { CleanupReport };

export async function runOrphanCleanup(
  deps: OrphanCleanupDeps,
  { stopsPerSecond, ...options }: OrphanCleanupOptions = {},
): Promise<CleanupReport> {
  const { ecs, sessions, config, clock, sleep, warm, pods, videos } = deps;
  const fleets: BrowserFleet[] = [
    new EcsFleet({ ecs, sessions, config, clock, sleep, stopsPerSecond, warm }),
  ];
  if (pods) fleets.push(new EksFleet(pods.api, pods.keepLog));
  const report = await runCleanupPass(deps, fleets, options);
  const ecsPlace = videos?.recordings ? ecsVideoPlace(videos.recordings) : () => undefined;
  const placeOf: VideoPlaceOf = (pool) => ecsPlace(pool) ?? eksVideoPlace(pool);
  // No read of the store for videos when no pool's recorder uploads any.
  if (videos && Object.values(config.pools).some(placeOf)) {
    await deleteUnkeptVideos(
      { sessions, pools: config.pools, logger: deps.logger, clock },
      {
        placeOf,
        deleter: videos.deleter,
        intervalMs: warm?.intervalMs ?? DEFAULT_INTERVAL_MS,
        dryRun: options.dryRun,
        deadline: options.deadline,
      },
    );
  }
  return report;
}
