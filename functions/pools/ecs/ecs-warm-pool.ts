/**
 * The cleanup's work on ecs warm pools, one pass at a time: registers warm tasks that became RUNNING and
 * driver-ready, stops those idle past their TTL or never ready, forgets store entries of tasks that are
 * gone, and tops each pool up to a target sized from recent demand (warm-pool-size.ts).
 *
 * Warm tasks are started here rather than by a router because only the cleanup runs on a schedule; a task
 * it starts is registered on a later pass, once ready, so no pass waits out a cold start.
 */
import { randomUUID } from 'node:crypto';
import type { ECSClient } from '@aws-sdk/client-ecs';
import { abortAfter } from '../../core/abort-after';
import type { FleetWarmPass, WarmJudgement, WarmPoolReport } from '../../core/browser-fleet';
import { addressAllowed } from '../../core/browser-network';
import type { Config, EcsPoolConfig } from '../../core/config';
import { judgeWarmTask, type WarmStopReason } from '../../core/orphan-decisions';
import { type Clock, type LaunchRequest, noMetrics, type SessionStore } from '../../core/ports';
import { DEFAULT_CLEANUP_INTERVAL_MS, type WarmPoolDeps } from '../../core/warm-demand';
import type { WarmTask } from '../../core/warm-task-store';
import { driverStatus } from '../selenium-node/driver-ready';
import { isDeployed } from './ecs-pool-check';
import { runTask } from './ecs-run-task';
import type { ListedTask } from './ecs-task-lister';
import { warmPoolTarget, warmTasksToStart } from './warm-pool-size';

interface PassContext {
  ecs: ECSClient;
  sessions: SessionStore;
  config: Config;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  dryRun: boolean;
  graceMs: number;
  deadline: number | undefined;
}

const DEFAULT_INTERVALS = 10;
// At most this many RunTask calls per pool and pass: RunTask's bucket is 20 per second per account and
// Region (aws-constraints 5.1), shared with the routers' own launches.
const STARTS_PER_PASS = 10;
const STATUS_TIMEOUT_MS = 2000;

export class WarmPoolPass implements FleetWarmPass<ListedTask> {
  readonly report: Record<string, WarmPoolReport> = {};
  private readonly entries = new Map<string, Map<string, WarmTask>>();

  constructor(
    private readonly deps: WarmPoolDeps,
    private readonly context: PassContext,
  ) {}

  /** Reads every ecs pool's entries (pools without `warm` too: their leftovers are drained). */
  async load(): Promise<void> {
    for (const pool of ecsPools(this.context.config)) {
      const tasks = await this.deps.warm.list(pool.name);
      this.entries.set(pool.name, new Map(tasks.map((task) => [task.taskId, task])));
      if (warmMax(pool) > 0 || tasks.length > 0) this.reportOf(pool.name);
    }
  }

  /** Judges one listed task with the warm tag; registers it when it is ready to be claimed. */
  async judge(task: ListedTask): Promise<WarmJudgement> {
    const pool = poolNamed(this.context.config, task.pool);
    const entry = task.pool === undefined ? undefined : this.entries.get(task.pool)?.get(task.taskId);
    const verdict = judgeWarmTask(
      { launchedAt: task.launchedAt, sessionKey: task.sessionKey, warm: task.warm ?? 'unclaimed' },
      entry,
      {
        idleTtlMs: pool && warmMax(pool) > 0 ? pool.warm?.idleTtl : undefined,
        startMs: this.context.config.timeouts.newSession + this.context.graceMs,
      },
      this.context.clock.now(),
    );
    if (verdict.action === 'session') return { kind: 'session', facts: verdict.facts };
    if (verdict.action === 'stop') return { kind: 'stop', reason: verdict.reason };
    const report = this.reportOf(task.pool ?? '');
    if (verdict.action === 'keep') {
      report.idle++;
      return { kind: 'keep' };
    }
    if (pool && (await this.register(pool, task))) {
      report.registered++;
      report.idle++;
    } else {
      report.starting++;
    }
    return { kind: 'keep' };
  }

  /**
   * Forgets the entries of these pools whose task the listing no longer shows (stopped, reclaimed), and
   * claimed entries whose task now carries its session's tags: from then on the tags say all.
   */
  async forgetGone(pools: Iterable<string>, listed: ReadonlyMap<string, ListedTask>): Promise<void> {
    for (const pool of pools) {
      for (const entry of this.entries.get(pool)?.values() ?? []) {
        const task = listed.get(entry.taskId);
        if (task !== undefined && !(entry.state === 'claimed' && task.warm === 'claimed')) continue;
        if (!this.context.dryRun) await this.deps.warm.remove(pool, entry.taskId);
      }
    }
  }

  /**
   * Just before the cleanup stops a warm task: a registered one leaves the store first, and only while
   * idle, so a router claiming it in the meantime keeps it (false: do not stop it). In a dry run nothing
   * is written and every stop is reported.
   */
  async mayStop(pool: string | undefined, taskId: string): Promise<boolean> {
    if (pool === undefined || this.context.dryRun || !this.entries.get(pool)?.has(taskId)) return true;
    return this.deps.warm.retire(pool, taskId);
  }

  /** After the cleanup stopped a warm task (or, in a dry run, would have): the report counts it. */
  stopped(pool: string | undefined, reason: WarmStopReason): void {
    const report = this.reportOf(pool ?? '');
    report.stopped[reason] = (report.stopped[reason] ?? 0) + 1;
  }

  /** Starts tasks up to each warm pool's target, never past its free capacity. */
  async topUp(): Promise<void> {
    const pools = ecsPools(this.context.config).filter((pool) => warmMax(pool) > 0 && isDeployed(pool));
    if (pools.length === 0) return;
    const now = this.context.clock.now();
    const intervalMs = this.deps.intervalMs ?? DEFAULT_CLEANUP_INTERVAL_MS;
    const intervals = this.deps.intervals ?? DEFAULT_INTERVALS;
    const [starts, inUse] = await Promise.all([
      this.deps.starts.startedSince(now - intervalMs * intervals),
      this.context.sessions.inUse(),
    ]);
    for (const pool of pools) {
      const report = this.reportOf(pool.name);
      const warm = pool.warm as NonNullable<EcsPoolConfig['warm']>;
      report.target = warmPoolTarget({
        starts: starts.filter((start) => start.pool === pool.name).map((start) => start.createdAt),
        now,
        intervalMs,
        intervals,
        min: warm.min,
        max: warm.max,
      });
      const count = warmTasksToStart({
        target: report.target,
        idle: report.idle,
        starting: report.starting,
        maxSessions: pool.maxSessions,
        inUse: inUse[pool.name] ?? 0,
        perPass: STARTS_PER_PASS,
      });
      await this.start(pool, count, report);
    }
  }

  private async start(pool: EcsPoolConfig, count: number, report: WarmPoolReport): Promise<void> {
    if (!isDeployed(pool)) return;
    for (let n = 0; n < count; n++) {
      const now = this.context.clock.now();
      const { deadline } = this.context;
      if (deadline !== undefined && now >= deadline) {
        report.error = 'the pass ran out of time';
        return;
      }
      if (!this.context.dryRun) {
        // Aborted at the deadline, so a throttled or capacity-short RunTask never outlives the pass.
        const passDeadline = deadline === undefined ? undefined : abortAfter(deadline - now);
        const signal = passDeadline?.signal ?? new AbortController().signal;
        const order = {
          warm: true as const,
          // A fresh name per task: it is RunTask's idempotency token.
          key: `warm-${randomUUID()}`,
          idleTimeoutMs: this.context.config.timeouts.idle,
          signal,
        } satisfies Pick<LaunchRequest, 'key' | 'idleTimeoutMs' | 'signal'> & { warm: true };
        try {
          await runTask(
            {
              ecs: this.context.ecs,
              metrics: noMetrics,
              sleep: (ms, abort) => (abort.aborted ? Promise.reject(abort.reason) : this.context.sleep(ms)),
              random: this.deps.random ?? Math.random,
            },
            pool,
            order,
            now,
          );
        } catch (error) {
          // Throttled, no capacity, or out of time: the next pass tries again.
          report.error = `${(error as Error).name}: ${(error as Error).message}`;
          return;
        } finally {
          passDeadline?.clear();
        }
      }
      report.started++;
      report.starting++;
    }
  }

  /** Registers a RUNNING task whose WebDriver /status says ready; false when it is not (yet). */
  private async register(pool: EcsPoolConfig, task: ListedTask): Promise<boolean> {
    if (task.lastStatus !== 'RUNNING' || task.ip === undefined) return false;
    const address = `${task.ip}:${pool.port}`;
    if (!addressAllowed(pool, address)) return false;
    const status = await driverStatus({
      address,
      signal: AbortSignal.timeout(STATUS_TIMEOUT_MS),
    }).catch(() => 'no answer');
    if (status !== 'ready') return false;
    if (this.context.dryRun) return true;
    return this.deps.warm.register({
      pool: pool.name,
      taskId: task.taskId,
      taskArn: task.taskArn,
      address,
      startedAt: task.launchedAt ?? this.context.clock.now(),
      readyAt: this.context.clock.now(),
      state: 'idle',
    });
  }

  private reportOf(pool: string): WarmPoolReport {
    this.report[pool] ??= { target: 0, idle: 0, starting: 0, registered: 0, started: 0, stopped: {} };
    return this.report[pool];
  }
}

function ecsPools(config: Config): EcsPoolConfig[] {
  return Object.values(config.pools).filter((pool): pool is EcsPoolConfig => pool.kind === 'ecs');
}

function poolNamed(config: Config, name: string | undefined): EcsPoolConfig | undefined {
  const pool = name === undefined ? undefined : config.pools[name];
  return pool?.kind === 'ecs' ? pool : undefined;
}

function warmMax(pool: EcsPoolConfig): number {
  return pool.warm?.max ?? 0;
}
