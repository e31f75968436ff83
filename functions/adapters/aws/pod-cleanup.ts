/**
 * The scheduled cleanup's pass over eks pools: lists gridgate's pods (label gridgate=true) in each pool's
 * cluster and namespace, deletes those no session needs and ends running records whose pod is gone, by
 * the same rules as for ECS tasks (core/orphan-decisions). Adds what it did to the ECS pass's report.
 */
import type { Config } from '../../core/config';
import {
  type GoneReason,
  judgeRecord,
  judgeTask,
  type OrphanPolicy,
  type StopReason,
  type TaskFacts,
} from '../../core/orphan-decisions';
import type { Clock, Logger, SessionRecord, SessionStore } from '../../core/ports';
import { type EksPodApi, KubernetesApiError } from './eks-pod-api';
import { GRID_SELECTOR, POD_ANNOTATIONS, POD_LABELS, type Pod } from './eks-pod-spec';
import { type DeployedEksPool, isDeployedEks } from './eks-pool-check';
import type { CleanupReport, ClusterOutcome, ReapedItem } from './orphan-cleanup';

const DEFAULT_GRACE_MS = 60_000;

export interface PodCleanupDeps {
  /** The pod API of a pool's cluster (eksPodApis). */
  pods: (pool: DeployedEksPool) => EksPodApi;
  sessions: SessionStore;
  config: Config;
  logger: Logger;
  clock: Clock;
}

export interface PodCleanupOptions {
  dryRun?: boolean;
  graceMs?: number;
  /** Epoch ms after which no delete starts: the rest waits for the next pass. */
  deadline?: number;
}

/** The eks pools grouped by where their pods live: one list call per cluster and namespace. */
export function podPlaces(config: Config): Map<string, { pool: DeployedEksPool; pools: Set<string> }> {
  const places = new Map<string, { pool: DeployedEksPool; pools: Set<string> }>();
  for (const pool of Object.values(config.pools)) {
    if (pool.kind !== 'eks' || !isDeployedEks(pool)) continue;
    const place = `${pool.cluster}/${pool.namespace}`;
    const known = places.get(place);
    if (known) known.pools.add(pool.name);
    else places.set(place, { pool, pools: new Set([pool.name]) });
  }
  return places;
}

export async function reapOrphanPods(
  deps: PodCleanupDeps,
  options: PodCleanupOptions,
  report: CleanupReport,
): Promise<void> {
  const policy: OrphanPolicy = {
    newSessionMs: deps.config.timeouts.newSession,
    maxAgeMs: deps.config.timeouts.maxAge,
    graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
  };
  // Read before listing: a session created meanwhile has its pod listed and its record fetched by key.
  const running = await deps.sessions.running();
  for (const [place, { pool, pools }] of podPlaces(deps.config)) {
    const outcome: ClusterOutcome = { cluster: place, tasks: 0, status: 'done' };
    report.clusters.push(outcome);
    const pass = new PlacePass(deps, options, report, policy, pool, outcome);
    try {
      await pass.run(running.filter((record) => pools.has(record.pool)));
    } catch (error) {
      // One cluster's trouble leaves the others to run.
      outcome.status = error instanceof KubernetesApiError && error.transient ? 'throttled' : 'failed';
      outcome.error = String(error);
    }
  }
}

/** What the cleanup rules need of a pod: when its launch began and whose session it is. */
export function podFacts(pod: Pod): TaskFacts {
  const annotated = Number(pod.metadata?.annotations?.[POD_ANNOTATIONS.createdAt]);
  const created = Date.parse(pod.metadata?.creationTimestamp ?? '');
  return {
    launchedAt:
      Number.isFinite(annotated) && annotated > 0 ? annotated : Number.isNaN(created) ? undefined : created,
    sessionKey: pod.metadata?.labels?.[POD_LABELS.session] || undefined,
  };
}

function isFinished(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

class PlacePass {
  private readonly api: EksPodApi;
  private readonly dryRun: boolean;

  constructor(
    private readonly deps: PodCleanupDeps,
    private readonly options: PodCleanupOptions,
    private readonly report: CleanupReport,
    private readonly policy: OrphanPolicy,
    private readonly pool: DeployedEksPool,
    private readonly outcome: ClusterOutcome,
  ) {
    this.api = deps.pods(pool);
    this.dryRun = options.dryRun ?? false;
  }

  async run(records: SessionRecord[]): Promise<void> {
    // Pods being deleted are on their way out already.
    const pods = (await this.api.list(this.pool.namespace, GRID_SELECTOR)).filter(
      (pod: Pod) => !pod.metadata?.deletionTimestamp,
    );
    this.outcome.tasks = pods.length;
    const byKey = new Map(records.map((record) => [record.key, record]));
    // A pod whose browser exited (restartPolicy Never) stays listed as Succeeded or Failed: its session is gone.
    const alive = new Set(pods.filter((pod: Pod) => !isFinished(pod)).map((pod: Pod) => pod.metadata.name));
    for (const record of records) {
      if (alive.has(record.handle)) continue;
      const verdict = judgeRecord(record, { state: 'missing' }, this.deps.clock.now());
      if (verdict.action === 'end') await this.endRecord(record, verdict.reason);
    }
    for (const pod of pods) {
      const facts = podFacts(pod);
      const record = facts.sessionKey
        ? (byKey.get(facts.sessionKey) ?? (await this.deps.sessions.get(facts.sessionKey)))
        : undefined;
      const verdict = judgeTask(facts, record, this.policy, this.deps.clock.now());
      if (verdict.action !== 'stop') continue;
      if (this.options.deadline !== undefined && this.deps.clock.now() >= this.options.deadline) {
        this.report.deferred++;
        continue;
      }
      await this.deletePod(pod.metadata.name, facts.sessionKey, verdict.reason, verdict.endSession);
    }
  }

  private async deletePod(name: string, key: string | undefined, reason: StopReason, endSession: boolean) {
    if (!this.dryRun) {
      // A transient failure throws: the rest of this place waits for the next pass (status throttled).
      await this.api.delete(this.pool.namespace, name);
      if (key !== undefined) {
        if (endSession && reason === 'max age')
          await this.deps.sessions.end(key, 'max age', this.deps.clock.now());
        await this.deps.sessions.release(key);
      }
    }
    this.count({ cluster: this.outcome.cluster, reason, task: name, session: key, pool: this.pool.name });
  }

  private async endRecord(record: SessionRecord, reason: GoneReason): Promise<void> {
    if (!this.dryRun) {
      const ended = await this.deps.sessions.end(record.key, reason, this.deps.clock.now());
      await this.deps.sessions.release(record.key);
      // Someone else ended it first: not ours to count.
      if (!ended) return;
    }
    this.count({
      cluster: this.outcome.cluster,
      reason,
      task: record.handle,
      session: record.key,
      pool: record.pool,
    });
  }

  private count(item: ReapedItem): void {
    this.report.reaped[item.reason] = (this.report.reaped[item.reason] ?? 0) + 1;
    this.report.total++;
    this.report.items.push(item);
  }
}
