/**
 * gridgate's Fargate tasks as a browser fleet for the cleanup pass: one place per ECS cluster the config's
 * ecs pools name, tasks listed by startedBy (ecs-task-lister.ts), stopped with a reason ECS shows, at a
 * paced rate, and the warm pool's work (ecs-warm-pool.ts) for pools that keep tasks ahead of demand.
 */
import { type ECSClient, StopTaskCommand } from '@aws-sdk/client-ecs';
import type { BrowserFleet, FleetPlace, WarmPassOptions } from '../../core/browser-fleet';
import type { Config } from '../../core/config';
import type { StopReason, TaskFate, WarmStopReason } from '../../core/orphan-decisions';
import type { Clock, SessionStore } from '../../core/ports';
import type { WarmPoolDeps } from '../../core/warm-demand';
import { isTaskGone, isThrottling } from './ecs-retry';
import { EcsTaskLister, type ListedTask } from './ecs-task-lister';
import { WarmPoolPass } from './ecs-warm-pool';

// Well under ECS's per-action token buckets (aws-constraints 5.2), leaving room for the routers' own StopTask calls.
const DEFAULT_STOPS_PER_SECOND = 5;

/** What StopTask's reason says (shown by DescribeTasks and the console for about an hour). */
const STOP_REASON: Record<StopReason | WarmStopReason, string> = {
  'max age': 'gridgate cleanup: older than any session may live',
  'no session': 'gridgate cleanup: no session within the new-session timeout',
  'session ended': 'gridgate cleanup: its session has ended',
  'warm expired': 'gridgate cleanup: warm task idle past its TTL',
  'warm never ready': 'gridgate cleanup: warm task never became ready',
};

export interface EcsFleetDeps {
  ecs: ECSClient;
  sessions: SessionStore;
  config: Config;
  clock: Clock;
  /** Waits between StopTask calls (rate bound); tests pass one that only records. */
  sleep?: (ms: number) => Promise<void>;
  /** At most this many StopTask calls per second, over all clusters. */
  stopsPerSecond?: number;
  /** The warm pool store and demand; without it warm tasks are neither started nor registered. */
  warm?: WarmPoolDeps;
}

/** One fleet per cleanup pass: the StopTask pacing counts that pass's calls. */
export class EcsFleet implements BrowserFleet<ListedTask> {
  private readonly lister: EcsTaskLister;
  private readonly gapMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private stopsSent = 0;
  /** Only with the warm pool's deps: without them warm tasks are judged as any task. */
  readonly warmPass?: (options: WarmPassOptions) => WarmPoolPass;

  constructor(private readonly deps: EcsFleetDeps) {
    this.lister = new EcsTaskLister(deps.ecs);
    const rate = deps.stopsPerSecond ?? DEFAULT_STOPS_PER_SECOND;
    if (!(rate > 0)) throw new RangeError(`stopsPerSecond must be above 0, not ${rate}`);
    this.gapMs = 1000 / rate;
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    const { warm } = deps;
    if (warm) {
      this.warmPass = (options) =>
        new WarmPoolPass(warm, {
          ecs: deps.ecs,
          sessions: deps.sessions,
          config: deps.config,
          clock: deps.clock,
          sleep: this.sleep,
          ...options,
        });
    }
  }

  places(config: Config): FleetPlace[] {
    return [...ecsClusters(config)].map(([name, pools]) => ({ name, pools }));
  }

  list(place: FleetPlace): Promise<ListedTask[]> {
    return this.lister.running(place.name);
  }

  fates(place: FleetPlace, ids: string[]): Promise<Map<string, TaskFate>> {
    return this.lister.fates(place.name, ids);
  }

  async stop(place: FleetPlace, id: string, reason: StopReason | WarmStopReason): Promise<void> {
    if (this.stopsSent > 0) await this.sleep(this.gapMs);
    this.stopsSent++;
    try {
      await this.deps.ecs.send(
        new StopTaskCommand({ cluster: place.name, task: id, reason: STOP_REASON[reason] }),
      );
    } catch (error) {
      // Gone between the listing and now: what the stop was for has happened.
      if (!isTaskGone(error)) throw error;
    }
  }

  isThrottled(error: unknown): boolean {
    return isThrottling(error);
  }
}

/** The ECS clusters the config's ecs pools name, each with the names of its pools. */
export function ecsClusters(config: Config): Map<string, Set<string>> {
  const clusters = new Map<string, Set<string>>();
  for (const pool of Object.values(config.pools)) {
    if (pool.kind !== 'ecs') continue;
    // RunTask without a cluster runs in the account's cluster named "default".
    const cluster = pool.cluster ?? 'default';
    clusters.set(cluster, (clusters.get(cluster) ?? new Set()).add(pool.name));
  }
  return clusters;
}
