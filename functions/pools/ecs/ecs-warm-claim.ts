/**
 * A new session's fast path on an ecs pool with a warm pool: claim an idle pre-started task (one
 * conditional write), check it still answers /status, tag it as this session's (TagResource), and use it
 * as if it had just been launched. Anything short of that gives the task up and says "go cold": the
 * caller then starts a task with RunTask as without a warm pool.
 */
import { type ECSClient, TagResourceCommand } from '@aws-sdk/client-ecs';
import type { Dispatcher } from 'undici';
import { type Backoff, backoffMs, type Sleep } from '../../adapters/aws/retry-pacing';
import { addressAllowed } from '../../core/browser-network';
import type { Clock, LaunchRequest, Logger } from '../../core/ports';
import type { WarmTask, WarmTaskStore } from '../../core/warm-task-store';
import { driverStatus } from '../selenium-node/driver-ready';
import type { DeployedEcsPool } from './ecs-pool-check';
import { isThrottling } from './ecs-retry';
import { tagValue } from './ecs-run-task';
import { TASK_TAGS, WARM_CLAIMED } from './task-tags';

export interface WarmClaimDeps {
  ecs: ECSClient;
  warm: WarmTaskStore;
  clock: Clock;
  sleep: Sleep;
  random: () => number;
  agent?: Dispatcher;
  logger?: Logger;
  /** Stops a task given up on (never throws). */
  stopTask: (taskId: string, reason: string) => Promise<void>;
}

const TAG_TRIES = 3;
const TAG_BACKOFF: Backoff = { firstMs: 200, maxMs: 1000, factor: 2 };

/** The claimed task, ready for the new-session request; undefined when the launch should go cold. */
export async function claimWarmTask(
  deps: WarmClaimDeps,
  pool: DeployedEcsPool,
  request: LaunchRequest,
): Promise<WarmTask | undefined> {
  let task: WarmTask | undefined;
  try {
    task = await deps.warm.claim(pool.name, { key: request.key, at: deps.clock.now() });
  } catch (error) {
    // The store's trouble must not fail the session: a cold launch needs no store.
    deps.logger?.log('UPSTREAM_ERROR', {
      store: 'dynamodb',
      operation: 'warm claim',
      pool: pool.name,
      error: (error as Error).message,
    });
    return undefined;
  }
  if (!task) return undefined;
  // Already RUNNING with its node up: the only stage left is the driver check.
  request.onStage?.('driver');
  try {
    const problem = await usable(deps, pool, task, request);
    if (problem === undefined) return task;
    deps.logger?.log('BROWSER_EXITED', {
      pool: pool.name,
      handle: task.taskId,
      reason: `warm task ${problem}`,
    });
    await giveUp(deps, pool, task, `gridgate: warm task ${problem}`);
    return undefined;
  } catch (error) {
    // Aborted: the task is this session's now and nobody else's, so it goes too.
    await giveUp(deps, pool, task, 'gridgate: launch aborted');
    throw error;
  }
}

/** Why the claimed task cannot serve, or undefined when it can (and is tagged as this session's). */
async function usable(
  deps: WarmClaimDeps,
  pool: DeployedEcsPool,
  task: WarmTask,
  request: LaunchRequest,
): Promise<string | undefined> {
  // Registered under another config, perhaps: the session ID would be refused with this address.
  if (!addressAllowed(pool, task.address)) return `address ${task.address} is outside the pool's networks`;
  const status = await driverStatus({ address: task.address, signal: request.signal, agent: deps.agent });
  if (status !== 'ready') return `not ready: ${status}`;
  const tagged = await tagClaimed(deps, task, request);
  return tagged === true ? undefined : `not tagged: ${tagged}`;
}

/**
 * Tags the task as this session's, the way RunTask tags a session's task, so the cleanup judges it by its
 * session from now on; created-at becomes the claim, since the session's age bound counts from there.
 */
async function tagClaimed(
  deps: WarmClaimDeps,
  task: WarmTask,
  request: LaunchRequest,
): Promise<true | string> {
  const input = {
    resourceArn: task.taskArn,
    tags: [
      { key: TASK_TAGS.warm, value: WARM_CLAIMED },
      { key: TASK_TAGS.session, value: tagValue(request.key) },
      { key: TASK_TAGS.user, value: tagValue(request.user) },
      { key: TASK_TAGS.createdAt, value: String(task.claimedAt ?? deps.clock.now()) },
    ],
  };
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.ecs.send(new TagResourceCommand(input), { abortSignal: request.signal });
      return true;
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason;
      if (isThrottling(error) && attempt < TAG_TRIES) {
        await deps.sleep(backoffMs(TAG_BACKOFF, attempt - 1, deps.random), request.signal);
        continue;
      }
      return `${(error as Error).name}: ${(error as Error).message}`;
    }
  }
}

async function giveUp(deps: WarmClaimDeps, pool: DeployedEcsPool, task: WarmTask, reason: string) {
  await deps.stopTask(task.taskId, reason);
  // The cleanup forgets it too once the task is gone; this only saves another router the claim.
  await deps.warm.remove(pool.name, task.taskId).catch(() => undefined);
}
