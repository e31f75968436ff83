/**
 * The scheduled cleanup over the browser fleets of every kind whose browsers outlive a router (ecs tasks, eks
 * pods): each kind the config has pools of gives its fleet and where its recorders upload (its `cleanup`,
 * loaded only then); every pass sweeps the fleets, then, given a deleter, deletes the videos sessions were not
 * to keep (use-cases/delete-unkept-videos.ts). The cleanup Lambda runs it on its schedule; tests give their
 * own fakes through `makers`.
 */
import type { VideoDeleter, VideoPlaceOf } from '../core/unkept-videos';
import { DEFAULT_CLEANUP_INTERVAL_MS } from '../core/warm-demand';
import { type CleanupMakers, POOL_KINDS, poolsOfKind } from '../pools';
import type { CleanupContext, KindCleanup, PoolKindName } from '../pools/pool-kind';
import { type CleanupPassDeps, type CleanupPassOptions, runCleanupPass } from '../use-cases/cleanup-pass';
import type { CleanupReport } from '../use-cases/cleanup-report';
import { deleteUnkeptVideos } from '../use-cases/delete-unkept-videos';

export interface OrphanCleanupDeps extends CleanupPassDeps, CleanupContext {
  /** What deletes the videos sessions were not to keep; without it none are deleted. */
  videoDeleter?: VideoDeleter;
  /** Cleanup makers in place of what the kinds' `cleanup.load()` answers (tests' fakes). */
  makers?: CleanupMakers;
}

/** One pass of the cleanup. */
export type OrphanCleanup = (options?: CleanupPassOptions) => Promise<CleanupReport>;

export type { CleanupReport };

/** Makes the cleanup part of every kind the config has pools of, once; answers what runs a pass. */
export async function orphanCleanup(deps: OrphanCleanupDeps): Promise<OrphanCleanup> {
  const kinds = await cleanupsOfKinds(deps);
  const byKind: Partial<Record<PoolKindName, KindCleanup>> = Object.fromEntries(kinds);
  const placeOf: VideoPlaceOf = (pool) => byKind[pool.kind]?.videoPlace?.(pool);
  const { config, sessions, clock } = deps;
  // No read of the store for videos when no pool's recorder uploads any.
  const deleter = Object.values(config.pools).some(placeOf) ? deps.videoDeleter : undefined;
  return async (options = {}) => {
    const report = await runCleanupPass(
      deps,
      kinds.map(([, kind]) => kind.fleet()),
      options,
    );
    if (deleter) {
      await deleteUnkeptVideos(
        { sessions, pools: config.pools, logger: deps.logger, clock },
        {
          placeOf,
          deleter,
          intervalMs: deps.warm?.intervalMs ?? DEFAULT_CLEANUP_INTERVAL_MS,
          dryRun: options.dryRun,
          deadline: options.deadline,
        },
      );
    }
    return report;
  };
}

/** Each kind's part of the cleanup, in the registry's order, for the kinds the config has pools of. */
async function cleanupsOfKinds(deps: OrphanCleanupDeps): Promise<[PoolKindName, KindCleanup][]> {
  const made: [PoolKindName, KindCleanup][] = [];
  for (const kind of Object.values(POOL_KINDS)) {
    if (!kind.cleanup || poolsOfKind(deps.config, kind.name).length === 0) continue;
    const make = deps.makers?.[kind.name] ?? (await kind.cleanup.load());
    made.push([kind.name, await make(deps)]);
  }
  return made;
}
