/**
 * One pass of the scheduled cleanup over every cluster the config's ecs pools name: stops gridgate's
 * tasks that no session needs, ends running records whose task is gone, frees their slots, and reports
 * what it reaped by reason (DESIGN invariant 4's backstop; aws-constraints implication 11).
 *
 * It calls the SessionStore and StopTask itself rather than endSession: endSession needs GridDeps (a
 * signing secret, a slot queue nobody waits on here, a launcher), swallows a failed stop into a log, and
 * ends the record before stopping. Here an orphan often has no record at all, a dry run must decide
 * without acting, and a throttled StopTask must leave everything as it was for the next pass; so the
 * task is stopped first and the store written only once the stop went through.
 */
import { type ECSClient, StopTaskCommand } from '@aws-sdk/client-ecs';
import type { Config } from '../../core/config';
import { staleSlots } from '../../core/free-stale-slots';
import {
  type GoneReason,
  judgeRecord,
  judgeTask,
  type OrphanPolicy,
  type OrphanReason,
  type StopReason,
  type WarmStopReason,
} from '../../core/orphan-decisions';
import { reportPoolGauges } from '../../core/pool-gauges';
import type { Clock, Logger, Metrics, SessionRecord, SessionStore } from '../../core/ports';
import { isTaskGone, isThrottling } from './ecs-retry';
import { EcsTaskLister, type ListedTask } from './ecs-task-lister';
import { type WarmPoolDeps, WarmPoolPass, type WarmPoolReport } from './ecs-warm-pool';
import type { EksPodApi } from './eks-pod-api';
import type { DeployedEksPool } from './eks-pool-check';
import { reapOrphanPods } from './pod-cleanup';

// Well under ECS's per-action token buckets (aws-constraints 5.2), leaving room for the routers' own StopTask calls.
const DEFAULT_STOPS_PER_SECOND = 5;
const DEFAULT_GRACE_MS = 60_000;
// The log line lists at most this many reaped tasks and records; the counts are always whole.
const LOGGED_ITEMS = 100;

/** What StopTask's reason says (shown by DescribeTasks and the console for about an hour). */
const STOP_REASON: Record<StopReason | WarmStopReason, string> = {
  'max age': 'gridgate cleanup: older than any session may live',
  'no session': 'gridgate cleanup: no session within the new-session timeout',
  'session ended': 'gridgate cleanup: its session has ended',
  'warm expired': 'gridgate cleanup: warm task idle past its TTL',
  'warm never ready': 'gridgate cleanup: warm task never became ready',
};

export interface OrphanCleanupDeps {
  ecs: ECSClient;
  sessions: SessionStore;
  config: Config;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  /** Waits between StopTask calls (rate bound); tests pass one that only records. */
  sleep?: (ms: number) => Promise<void>;
  /** The pod API of an eks pool's cluster; without it eks pools are not swept (pod-cleanup). */
  pods?: (pool: DeployedEksPool) => EksPodApi;
  /** The warm pool store and demand; without it warm tasks are neither started nor registered. */
  warm?: WarmPoolDeps;
}

export interface OrphanCleanupOptions {
  /** Decide and report only: no StopTask, no store writes, no metrics. */
  dryRun?: boolean;
  /** At most this many StopTask calls per second, over all clusters. */
  stopsPerSecond?: number;
  /** Slack on deadlines read from task tags (see OrphanPolicy.graceMs). */
  graceMs?: number;
  /** Epoch ms after which no StopTask starts (the Lambda's own deadline): the rest waits for the next pass. */
  deadline?: number;
}

/** One task stopped or record ended (or, in a dry run, that would be). */
export interface ReapedItem {
  cluster: string;
  reason: OrphanReason;
  /** The bare task ID. */
  task: string;
  session?: string;
  pool?: string;
}

export interface ClusterOutcome {
  cluster: string;
  /** gridgate's tasks found meant to run. */
  tasks: number;
  /** done: the pass went through; throttled: ECS throttled it, the rest waits for the next pass. */
  status: 'done' | 'throttled' | 'failed';
  error?: string;
}

export interface CleanupReport {
  dryRun: boolean;
  reaped: Partial<Record<OrphanReason, number>>;
  total: number;
  items: ReapedItem[];
  clusters: ClusterOutcome[];
  /** Decided, but left for the next pass: ECS throttled the stops or the deadline came. */
  deferred: number;
  /** Per pool with a warm pool (or leftovers of one): what the pass found and did. */
  warm?: Record<string, WarmPoolReport>;
}

interface StopAction {
  kind: 'stop';
  reason: StopReason | WarmStopReason;
  /** A warm pool task: counted in the warm report, not as an orphan. */
  warm?: boolean;
  task: string;
  key?: string;
  pool?: string;
  endSession: boolean;
}
type Action = StopAction | { kind: 'end'; reason: GoneReason; record: SessionRecord };

export async function runOrphanCleanup(
  deps: OrphanCleanupDeps,
  options: OrphanCleanupOptions = {},
): Promise<CleanupReport> {
  const pass = new CleanupPass(deps, options);
  const report = await pass.run();
  if (deps.pods) await reapOrphanPods({ ...deps, pods: deps.pods }, options, report);
  await freeStaleSlots(deps, options, report);
  deps.logger.log('ORPHANS_REMOVED', {
    dryRun: report.dryRun,
    total: report.total,
    reaped: report.reaped,
    deferred: report.deferred,
    clusters: report.clusters,
    ...(report.warm ? { warm: report.warm } : {}),
    items: report.items.slice(0, LOGGED_ITEMS),
  });
  if (!report.dryRun) {
    for (const [reason, count] of Object.entries(report.reaped)) {
      deps.metrics.count('OrphansReaped', { reason }, count);
    }
    await reportActiveSessions(deps);
  }
  return report;
}

/**
 * Frees slots no running session holds, past any launch's length (core/free-stale-slots.ts). After the
 * task pass, which ends the records of gone tasks, so their slots are freed the same pass.
 */
async function freeStaleSlots(deps: OrphanCleanupDeps, options: OrphanCleanupOptions, report: CleanupReport) {
  const policy = {
    newSessionMs: deps.config.timeouts.newSession,
    graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
  };
  for (const slot of await staleSlots(deps.sessions, policy, deps.clock.now())) {
    if (!report.dryRun) await deps.sessions.release(slot.key);
    report.reaped['stale slot'] = (report.reaped['stale slot'] ?? 0) + 1;
    report.total++;
    report.items.push({ cluster: '', reason: 'stale slot', task: '', session: slot.key, pool: slot.pool });
  }
}

/**
 * Sessions in use and capacity per pool, every pool of the config, once a pass: the one place that
 * counts them without adding a read to any request (the queue is a router's own, so not known here).
 */
async function reportActiveSessions(deps: OrphanCleanupDeps): Promise<void> {
  reportPoolGauges(deps.metrics, Object.values(deps.config.pools), { inUse: await deps.sessions.inUse() });
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

class CleanupPass {
  private readonly lister: EcsTaskLister;
  private readonly policy: OrphanPolicy;
  private readonly dryRun: boolean;
  private readonly gapMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private stopsSent = 0;
  private readonly report: CleanupReport;
  private readonly warm: WarmPoolPass | undefined;

  constructor(
    private readonly deps: OrphanCleanupDeps,
    private readonly options: OrphanCleanupOptions,
  ) {
    this.lister = new EcsTaskLister(deps.ecs);
    this.policy = {
      newSessionMs: deps.config.timeouts.newSession,
      maxAgeMs: deps.config.timeouts.maxAge,
      graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
    };
    this.dryRun = options.dryRun ?? false;
    const rate = options.stopsPerSecond ?? DEFAULT_STOPS_PER_SECOND;
    if (!(rate > 0)) throw new RangeError(`stopsPerSecond must be above 0, not ${rate}`);
    this.gapMs = 1000 / rate;
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.report = { dryRun: this.dryRun, reaped: {}, total: 0, items: [], clusters: [], deferred: 0 };
    this.warm =
      deps.warm &&
      new WarmPoolPass(deps.warm, {
        ecs: deps.ecs,
        sessions: deps.sessions,
        config: deps.config,
        clock: deps.clock,
        sleep: this.sleep,
        dryRun: this.dryRun,
        graceMs: this.policy.graceMs,
        deadline: options.deadline,
      });
  }

  async run(): Promise<CleanupReport> {
    // Read before listing: a session created meanwhile has its task listed and its record fetched by key.
    const running = await this.deps.sessions.running();
    // Also before listing: a task registered meanwhile is listed, and left for the next pass as starting.
    await this.warm?.load();
    for (const [cluster, pools] of ecsClusters(this.deps.config)) {
      const outcome: ClusterOutcome = { cluster, tasks: 0, status: 'done' };
      this.report.clusters.push(outcome);
      try {
        // Only records of this cluster's ecs pools: local and hub sessions are not ours to judge.
        await this.cluster(
          cluster,
          pools,
          running.filter((record) => pools.has(record.pool)),
          outcome,
        );
      } catch (error) {
        // One cluster's trouble (throttling, a deleted cluster, a denied call) leaves the others to run.
        outcome.status = isThrottling(error) ? 'throttled' : 'failed';
        outcome.error = String(error);
      }
    }
    if (this.warm) {
      // After the stops, so tasks stopped this pass are not counted, and only if every cluster was seen:
      // a pool whose tasks could not be listed would look empty and be filled twice.
      if (this.report.clusters.every((outcome) => outcome.status === 'done')) await this.warm.topUp();
      this.report.warm = this.warm.report;
    }
    return this.report;
  }

  private async cluster(
    cluster: string,
    pools: ReadonlySet<string>,
    records: SessionRecord[],
    outcome: ClusterOutcome,
  ): Promise<void> {
    const tasks = await this.lister.running(cluster);
    outcome.tasks = tasks.length;
    const actions: Action[] = [];
    const byKey = new Map(records.map((record) => [record.key, record]));
    for (const listed of tasks) {
      let task: ListedTask = listed;
      if (listed.warm !== undefined && this.warm) {
        const judged = await this.warm.judge(listed);
        if (judged.kind === 'keep') continue;
        if (judged.kind === 'stop') {
          actions.push({
            kind: 'stop',
            ...stopOf(listed),
            reason: judged.reason,
            warm: true,
            endSession: false,
          });
          continue;
        }
        // Claimed: judged by its session from here on, like any session's task.
        task = { ...listed, ...judged.facts };
      }
      const verdict = judgeTask(task, await this.recordOf(task, byKey), this.policy, this.deps.clock.now());
      if (verdict.action === 'stop') {
        actions.push({
          kind: 'stop',
          ...stopOf(task),
          reason: verdict.reason,
          endSession: verdict.endSession,
        });
      }
    }
    const listed = new Set(tasks.map((task) => task.taskId));
    await this.warm?.forgetGone(pools, new Map(tasks.map((task) => [task.taskId, task])));
    const unlisted = records.filter((record) => !listed.has(record.handle));
    if (unlisted.length > 0) {
      const fates = await this.lister.fates(
        cluster,
        unlisted.map((record) => record.handle),
      );
      for (const record of unlisted) {
        const verdict = judgeRecord(
          record,
          fates.get(record.handle) ?? { state: 'missing' },
          this.deps.clock.now(),
        );
        if (verdict.action === 'end') actions.push({ kind: 'end', reason: verdict.reason, record });
        if (verdict.action === 'stop') {
          const { reason, endSession } = verdict;
          actions.push({
            kind: 'stop',
            task: record.handle,
            key: record.key,
            pool: record.pool,
            reason,
            endSession,
          });
        }
      }
    }
    await this.carryOut(cluster, actions, outcome);
  }

  /** The task's session record: running (read up front) or fetched by key, ended ones included. */
  private async recordOf(
    task: ListedTask,
    running: Map<string, SessionRecord>,
  ): Promise<SessionRecord | undefined> {
    if (task.sessionKey === undefined) return undefined;
    return running.get(task.sessionKey) ?? (await this.deps.sessions.get(task.sessionKey));
  }

  private async carryOut(cluster: string, actions: Action[], outcome: ClusterOutcome): Promise<void> {
    // Records first: ending them needs no ECS call, so neither throttling nor the deadline holds them up.
    for (const action of actions) {
      if (action.kind === 'end') await this.endRecord(cluster, action.record, action.reason);
    }
    const stops = actions.filter((action): action is StopAction => action.kind === 'stop');
    for (const [index, stop] of stops.entries()) {
      if (this.options.deadline !== undefined && this.deps.clock.now() >= this.options.deadline) {
        this.report.deferred += stops.length - index;
        return;
      }
      // A warm task claimed since the listing is a session's now: it stays (and its entry with it).
      if (stop.warm && !(await this.warm?.mayStop(stop.pool, stop.task))) continue;
      if (!this.dryRun) {
        try {
          await this.stopTask(cluster, stop.task, stop.reason);
        } catch (error) {
          if (!isThrottling(error)) throw error;
          // The SDK already retried with backoff: the rest of this cluster waits for the next pass.
          this.report.deferred += stops.length - index;
          outcome.status = 'throttled';
          outcome.error = String(error);
          return;
        }
      }
      if (stop.warm) {
        this.warm?.stopped(stop.pool, stop.reason as WarmStopReason);
        continue;
      }
      await this.afterStop(stop);
      this.count({
        cluster,
        reason: stop.reason as StopReason,
        task: stop.task,
        session: stop.key,
        pool: stop.pool,
      });
    }
  }

  private async stopTask(cluster: string, task: string, reason: StopReason | WarmStopReason): Promise<void> {
    if (this.stopsSent > 0) await this.sleep(this.gapMs);
    this.stopsSent++;
    try {
      await this.deps.ecs.send(new StopTaskCommand({ cluster, task, reason: STOP_REASON[reason] }));
    } catch (error) {
      // Gone between the listing and now: what the stop was for has happened.
      if (!isTaskGone(error)) throw error;
    }
  }

  /** Ends the stopped task's running record if the verdict says so, and frees its slot (idempotent). */
  private async afterStop(action: StopAction): Promise<void> {
    if (this.dryRun || action.key === undefined) return;
    const now = this.deps.clock.now();
    // Only 'max age' ends a running record here; the other reasons had none running.
    if (action.endSession && action.reason === 'max age') {
      this.logEnded(await this.deps.sessions.end(action.key, 'max age', now), now);
    }
    // A launch that died half-way, or an end whose release was lost, still holds the key's slot.
    await this.deps.sessions.release(action.key);
  }

  private async endRecord(cluster: string, record: SessionRecord, reason: GoneReason) {
    if (!this.dryRun) {
      const now = this.deps.clock.now();
      const ended = await this.deps.sessions.end(record.key, reason, now);
      await this.deps.sessions.release(record.key);
      // Someone else (a DELETE, the router noticing the gone browser) ended it first: not ours to count.
      if (!ended) return;
      this.logEnded(ended, now);
    }
    this.count({ cluster, reason, task: record.handle, session: record.key, pool: record.pool });
  }

  /** The same per-session line endSession writes, so a session's story reads the same whoever ended it. */
  private logEnded(record: SessionRecord | undefined, now: number): void {
    if (!record?.endReason) return;
    this.deps.logger.log(record.endReason === 'max age' ? 'SESSION_TIMED_OUT' : 'SESSION_ENDED', {
      session: record.key,
      user: record.user,
      pool: record.pool,
      reason: record.endReason,
      durationMs: now - record.createdAt,
    });
  }

  private count(item: ReapedItem): void {
    this.report.reaped[item.reason] = (this.report.reaped[item.reason] ?? 0) + 1;
    this.report.total++;
    this.report.items.push(item);
  }
}

function stopOf(task: ListedTask): { task: string; key?: string; pool?: string } {
  return { task: task.taskId, key: task.sessionKey, pool: task.pool };
}
