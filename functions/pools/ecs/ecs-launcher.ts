/**
 * Launcher for ecs pools: one Fargate task per session (Spot first), started with RunTask, watched with
 * DescribeTasks until RUNNING, then asked for a ready WebDriver /status; stopped with StopTask on every
 * failure path and when the session ends. The handle is the bare task ID, rebuilt with the pool's cluster.
 * A pool with `warm` first tries to claim one of its pre-started idle tasks (ecs-warm-claim.ts), and
 * /status counts the idle ones (warmCount).
 */

import { DescribeTasksCommand, type ECSClient, StopTaskCommand, type Task } from '@aws-sdk/client-ecs';
import { type Backoff, backoffMs, NEVER_ABORTED, type Sleep } from '../../adapters/aws/retry-pacing';
import type { EcsPoolConfig } from '../../core/config';
import type { WarmCounter } from '../../core/pool-runtime';
import type {
  Clock,
  LaunchedBrowser,
  Launcher,
  LaunchRequest,
  Metrics,
  StopContext,
  TaskBilling,
} from '../../core/ports';
import { screenAndZoneEnvironment } from '../../core/screen-and-zone';
import { idleWarmTasks, type WarmTaskStore } from '../../core/warm-task-store';
import { type CloudBrowserFailures, cloudBrowserReady } from '../selenium-node/cloud-browser-ready';
import { type CloudLauncherOptions, launcherDefaults } from '../selenium-node/cloud-launcher-options';
import { recorderNodeCapabilities } from '../selenium-node/node-capabilities';
import { EcsLaunchFailure } from './ecs-launch-stage';
import { checkEcsPool, type DeployedEcsPool, isDeployed } from './ecs-pool-check';
import { keepsWarmTasks } from './ecs-pool-config';
import { isTaskGone, isThrottling } from './ecs-retry';
import { runTask, type SpotFallback } from './ecs-run-task';
import { isSpotStalled, SpotStalled } from './ecs-spot-stall';
import { isGoingDown, privateIpOf, stoppedReasonOf, taskIdOf } from './ecs-task-address';
import { claimWarmTask } from './ecs-warm-claim';

export { EcsLaunchFailure, type EcsLaunchStage } from './ecs-launch-stage';
export { checkEcsPool } from './ecs-pool-check';

export interface EcsLauncherOptions extends CloudLauncherOptions {
  /** Created once by the entry, with its region and credentials. */
  ecs: ECSClient;
  /** Where pools with `warm` keep their idle pre-started tasks; without it every launch is a RunTask. */
  warm?: WarmTaskStore;
}

// DescribeTasks is in the cluster-read bucket (aws-constraints 5.2): each launch polls 1 s growing to 5 s.
const DESCRIBE_BACKOFF: Backoff = { firstMs: 1000, maxMs: 5000, factor: 1.5 };
// Right after RunTask a task may be missing from DescribeTasks for a while (eventual consistency).
const MISSING_TOLERATED = 10;
const STOP_TRIES = 4;
const STOP_BACKOFF: Backoff = { firstMs: 500, maxMs: 4000, factor: 2 };
// A task's address outside the pool's networks is a launch that went wrong.
const TASK_FAILURES: CloudBrowserFailures = {
  unit: 'task',
  outsideNetworks: (details) => new EcsLaunchFailure('launch', details),
  driverNotReady: (details) => new EcsLaunchFailure('driver', details),
};

export class EcsLauncher implements Launcher<EcsPoolConfig>, WarmCounter {
  private readonly ecs: ECSClient;
  private readonly metrics: Metrics;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly random: () => number;

  constructor(private readonly options: EcsLauncherOptions) {
    this.ecs = options.ecs;
    ({
      metrics: this.metrics,
      clock: this.clock,
      sleep: this.sleep,
      random: this.random,
    } = launcherDefaults(options));
  }

  async start(request: LaunchRequest<EcsPoolConfig>): Promise<LaunchedBrowser> {
    const { pool, signal } = request;
    if (!isDeployed(pool)) throw new EcsLaunchFailure('config', checkEcsPool(pool).join('; '));
    signal.throwIfAborted();
    // A pool's warm task, when it keeps some and one is idle, saves the whole cold start below.
    const warm = await this.claimWarm(pool, request);
    if (warm) return warm;
    const started = this.clock.now();
    const { taskArn, running, spotFallback } = await this.runningTask(pool, request, started);
    try {
      const handle = taskIdOf(taskArn);
      request.onStage?.('driver');
      const address = await cloudBrowserReady(
        this.options,
        { pool, ip: running.ip, startedAt: started, signal },
        TASK_FAILURES,
      );
      this.metrics.timing('BrowserStartLatency', this.clock.now() - started, {
        pool: pool.name,
        start: 'cold',
      });
      // Fargate bills from the pull's start, at the rate of the provider ECS placed the task with.
      const billing = {
        ...taskBilling(
          pool,
          running.task.pullStartedAt?.getTime() ?? started,
          running.task.capacityProviderName === 'FARGATE_SPOT' ? 'spot' : 'on-demand',
        ),
        // The session's record says why a Spot pool's browser runs on-demand.
        ...(spotFallback ? { spotFallback } : {}),
      };
      return { address, handle, capabilities: recorderNodeCapabilities(pool, request), billing };
    } catch (error) {
      await this.stopTask(pool.name, pool.cluster, taskArn, stopReason(error, signal));
      throw error;
    }
  }

  /**
   * The session's task, RUNNING: Spot first (on-demand when RunTask finds no Spot capacity or quota), and
   * on-demand again when the Spot task stalls in PROVISIONING (ecs-spot-stall.ts), the stalled one stopped.
   * Whatever fails on the way stops the task it started.
   */
  private async runningTask(
    pool: DeployedEcsPool,
    request: LaunchRequest<EcsPoolConfig>,
    started: number,
  ): Promise<{ taskArn: string; running: { ip: string; task: Task }; spotFallback?: SpotFallback }> {
    const deps = { ecs: this.ecs, metrics: this.metrics, sleep: this.sleep, random: this.random };
    const first = await runTask(deps, pool, request, started);
    try {
      request.onStage?.('launch');
      request.signal.throwIfAborted();
      return { ...first, running: await this.waitForRunning(pool, first.taskArn, request, pool.spot) };
    } catch (error) {
      const stalled = error instanceof SpotStalled;
      await this.stopTask(
        pool.name,
        pool.cluster,
        first.taskArn,
        stalled ? 'gridgate: Spot task stalled in PROVISIONING' : stopReason(error, request.signal),
      );
      if (!stalled) throw error;
      this.options.logger?.log('SPOT_FALLBACK', { pool: pool.name, reason: error.message });
    }
    this.metrics.count('SpotFallbacks', { pool: pool.name });
    // A new token base: the first run's tokens went with other input (ECS answers ConflictException).
    const second = await runTask(deps, pool, request, started, {
      providers: ['FARGATE'],
      tokenBase: `${request.key}-on-demand`,
    });
    try {
      return {
        ...second,
        running: await this.waitForRunning(pool, second.taskArn, request, false),
        spotFallback: 'stalled',
      };
    } catch (error) {
      await this.stopTask(pool.name, pool.cluster, second.taskArn, stopReason(error, request.signal));
      throw error;
    }
  }

  /**
   * A warm pool's idle task, claimed for this session, checked and tagged; undefined when the pool keeps
   * none or none could be used. Any request matched to the pool can take one (an ecs pool has one image) but
   * one asking for its own time zone or screen size.
   */
  private async claimWarm(
    pool: DeployedEcsPool,
    request: LaunchRequest<EcsPoolConfig>,
  ): Promise<LaunchedBrowser | undefined> {
    const { warm } = this.options;
    if (warm === undefined || !keepsWarmTasks(pool)) return undefined;
    // A time zone or screen size is the environment a task starts with: a warm task has neither.
    if (Object.keys(screenAndZoneEnvironment(request.capabilities)).length > 0) return undefined;
    const started = this.clock.now();
    const task = await claimWarmTask(
      {
        ecs: this.ecs,
        warm,
        clock: this.clock,
        sleep: this.sleep,
        random: this.random,
        agent: this.options.agent,
        logger: this.options.logger,
        stopTask: (taskId, reason) => this.stopTask(pool.name, pool.cluster, taskId, reason),
      },
      pool,
      request,
    );
    if (!task) return undefined;
    this.metrics.timing('LaunchStageLatency', this.clock.now() - started, {
      pool: pool.name,
      stage: 'driver',
    });
    this.metrics.timing('BrowserStartLatency', this.clock.now() - started, {
      pool: pool.name,
      start: 'warm',
    });
    return {
      address: task.address,
      handle: task.taskId,
      capabilities: recorderNodeCapabilities(pool, request),
      // Billed since its own launch; the warm-task store keeps no provider, so the pool's first choice.
      billing: taskBilling(pool, task.startedAt, pool.spot ? 'spot' : 'on-demand'),
    };
  }

  /**
   * The pool's idle warm tasks, read from the warm-task store's entries: the ones a new session could claim
   * now (claimed ones are a session's already). 0 without a store, where no launch claims either.
   */
  async warmCount(pool: string): Promise<number> {
    const { warm } = this.options;
    return warm === undefined ? 0 : idleWarmTasks(warm, pool);
  }

  /** Never throws: a task already stopped or unknown is fine, anything else is logged. */
  async stop(handle: string, { pool, reason }: StopContext): Promise<void> {
    if (pool.kind !== 'ecs' || pool.cluster === undefined || handle === '') {
      this.options.logger?.log('BROWSER_STOP_FAILED', {
        handle,
        pool: pool.name,
        reason: 'an ECS task is stopped by its deployed ecs pool, and this is not one',
      });
      return;
    }
    await this.stopTask(pool.name, pool.cluster, handle, `gridgate: ${reason}`);
  }

  /**
   * Polls the task until RUNNING and returns its private IP and itself; rejects when it stops first, and
   * with SpotStalled when `watchSpot` and it stays PROVISIONING on Spot too long.
   */
  private async waitForRunning(
    pool: DeployedEcsPool,
    taskArn: string,
    request: LaunchRequest<EcsPoolConfig>,
    watchSpot: boolean,
  ): Promise<{ ip: string; task: Task }> {
    const { signal } = request;
    const since = this.clock.now();
    let missing = 0;
    let pulling = false;
    for (let poll = 0; ; poll++) {
      await this.sleep(backoffMs(DESCRIBE_BACKOFF, poll, this.random), signal);
      const task = await this.describe(pool.cluster, taskArn, signal);
      if (task === 'throttled') continue;
      if (task === undefined) {
        if (++missing > MISSING_TOLERATED) {
          throw new EcsLaunchFailure('launch', `task ${taskArn} is not known to DescribeTasks`);
        }
        continue;
      }
      if (watchSpot && isSpotStalled(task, this.clock.now() - since)) throw new SpotStalled(taskArn);
      if (isGoingDown(task)) {
        const { stage, reason } = stoppedReasonOf(task);
        throw new EcsLaunchFailure(stage, `the task stopped before it ran: ${reason}`);
      }
      // Fargate bills from the pull's start (aws-constraints 5.5), and the pull is most of a cold start.
      if (!pulling && task.pullStartedAt !== undefined && task.pullStoppedAt === undefined) {
        pulling = true;
        request.onStage?.('pull');
      }
      if (task.lastStatus !== 'RUNNING') continue;
      const ip = privateIpOf(task);
      if (!ip) throw new EcsLaunchFailure('launch', 'the task is RUNNING without a private IPv4 address');
      return { ip, task };
    }
  }

  private async describe(
    cluster: string,
    taskArn: string,
    signal: AbortSignal,
  ): Promise<Task | 'throttled' | undefined> {
    try {
      const answer = await this.ecs.send(new DescribeTasksCommand({ cluster, tasks: [taskArn] }), {
        abortSignal: signal,
      });
      return answer.tasks?.find((task) => task.taskArn === taskArn);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (isThrottling(error)) return 'throttled';
      const { name, message } = error as Error;
      throw new EcsLaunchFailure('launch', `DescribeTasks failed: ${name}: ${message}`, { cause: error });
    }
  }

  /** StopTask, retried while throttled; never throws, since it runs on failure paths and at session end. */
  private async stopTask(poolName: string, cluster: string, task: string, reason: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ecs.send(new StopTaskCommand({ cluster, task, reason }));
        return;
      } catch (error) {
        if (isTaskGone(error)) return;
        if (isThrottling(error) && attempt < STOP_TRIES) {
          await this.sleep(backoffMs(STOP_BACKOFF, attempt - 1, this.random), NEVER_ABORTED);
          continue;
        }
        // The scheduled cleanup finds the task by its startedBy and tags.
        this.options.logger?.log('BROWSER_STOP_FAILED', {
          pool: poolName,
          handle: task,
          reason: `${(error as Error).name}: ${(error as Error).message}`,
        });
        return;
      }
    }
  }
}

/** StopTask's reason (shown in the ECS console and in DescribeTasks' stoppedReason). */
function stopReason(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'gridgate: launch aborted';
  if (error instanceof EcsLaunchFailure && error.stage === 'driver') return 'gridgate: driver not ready';
  if (error instanceof EcsLaunchFailure) return `gridgate: ${error.stage} failed`;
  return 'gridgate: creation failed';
}

/** What a task of this pool is billed by (task CPU units and MiB, as the task definition has them). */
function taskBilling(
  pool: DeployedEcsPool,
  billedFrom: number,
  capacity: TaskBilling['capacity'],
): TaskBilling {
  return {
    billedFrom,
    capacity,
    vcpu: pool.cpu / 1024,
    memoryGb: pool.memory / 1024,
    architecture: pool.architecture,
  };
}
