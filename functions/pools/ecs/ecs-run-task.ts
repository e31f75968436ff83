/**
 * One browser task by RunTask: Fargate Spot first and on-demand Fargate when Spot has no capacity or the
 * account's Spot vCPU quota is used up, with gridgate's own jittered retries for throttling and capacity
 * shortages, bounded in tries and by the signal.
 */
import { createHash } from 'node:crypto';
import { type ECSClient, RunTaskCommand, type RunTaskCommandInput } from '@aws-sdk/client-ecs';
import { type Backoff, backoffMs, type Sleep } from '../../adapters/aws/retry-pacing';
import type { LaunchRequest, Metrics } from '../../core/ports';
import { screenAndZoneEnvironment } from '../../core/screen-and-zone';
import { RECORDER_CONTAINER } from '../selenium-node/recorder-environment';
import { EcsLaunchFailure } from './ecs-launch-stage';
import type { DeployedEcsPool } from './ecs-pool-check';
import { isNoCapacity, isThrottling, isVcpuQuota } from './ecs-retry';
import { STARTED_BY, TASK_TAGS, WARM_UNCLAIMED } from './task-tags';

export interface RunTaskDeps {
  ecs: ECSClient;
  metrics: Metrics;
  sleep: Sleep;
  random: () => number;
}

// RunTask's bucket is 20 calls/s per account and Region (aws-constraints 5.1): a throttled or
// capacity-short launch waits 1 s, 2 s, 4 s, 8 s between its five tries, jittered.
export const RUN_TASK_BACKOFF: Backoff = { firstMs: 1000, maxMs: 8000, factor: 2 };
export const RUN_TASK_TRIES = 5;

export type CapacityProvider = 'FARGATE_SPOT' | 'FARGATE';

/**
 * Why a task of a Spot-first pool runs on on-demand Fargate: RunTask found no Spot capacity, the account's
 * Spot vCPU quota was used up, or the Spot task stalled in PROVISIONING and was stopped (ecs-launcher.ts).
 */
export type SpotFallback = 'no capacity' | 'quota' | 'stalled';

export interface StartedTask {
  taskArn: string;
  /** Set when a Spot-first pool's task was started on FARGATE instead. */
  spotFallback?: SpotFallback;
}

export interface RunTaskOptions {
  /** The providers to try in order. @default FARGATE_SPOT then FARGATE for a Spot pool, else FARGATE */
  providers?: CapacityProvider[];
  /** What the idempotency tokens are made from, when not the request's key (a second run for one session). */
  tokenBase?: string;
}

/**
 * What a RunTask needs of its launch: a session's (its key and user go into the tags), or a warm pool
 * task's, started by the cleanup for no session yet (key: a unique name for the idempotency token).
 */
export type TaskRequest = Pick<LaunchRequest, 'key' | 'idleTimeoutMs' | 'signal'> &
  ({ user: string; capabilities: LaunchRequest['capabilities']; warm?: undefined } | { warm: true });

/** The RunTask input for one try: every field gridgate sets, nothing the task definition already says. */
export function runTaskInput(
  pool: DeployedEcsPool,
  request: TaskRequest,
  provider: CapacityProvider,
  clientToken: string,
  createdAt: number,
): RunTaskCommandInput {
  // The session's time zone and screen (se:timeZone, se:screenResolution): the browser container starts with
  // them, and so does the recorder, whose ffmpeg grabs SE_SCREEN_WIDTH x SE_SCREEN_HEIGHT of the display. A
  // few dozen characters, well within RunTask's 8192 for all overrides (ecs-api-rules.ts).
  const session = request.warm ? [] : keyValues(screenAndZoneEnvironment(request.capabilities));
  return {
    cluster: pool.cluster,
    taskDefinition: pool.taskDefinition,
    count: 1,
    // With a strategy, launchType must be absent (RunTask API reference).
    capacityProviderStrategy: [{ capacityProvider: provider, weight: 1 }],
    networkConfiguration: {
      awsvpcConfiguration: {
        subnets: pool.subnets,
        securityGroups: pool.securityGroups,
        assignPublicIp: pool.assignPublicIp ? 'ENABLED' : 'DISABLED',
      },
    },
    overrides: {
      containerOverrides: [
        {
          name: pool.containerName,
          // The node ends a session idle this long itself, a backstop to gridgate's own idle timeout.
          environment: [
            {
              name: 'SE_NODE_SESSION_TIMEOUT',
              value: String(Math.max(1, Math.ceil(request.idleTimeoutMs / 1000))),
            },
            ...session,
          ],
        },
        ...(pool.recorder && session.length > 0 ? [{ name: RECORDER_CONTAINER, environment: session }] : []),
      ],
    },
    startedBy: STARTED_BY,
    tags: request.warm
      ? [
          { key: TASK_TAGS.grid, value: 'true' },
          { key: TASK_TAGS.pool, value: tagValue(pool.name) },
          { key: TASK_TAGS.createdAt, value: String(createdAt) },
          { key: TASK_TAGS.warm, value: WARM_UNCLAIMED },
        ]
      : [
          { key: TASK_TAGS.grid, value: 'true' },
          { key: TASK_TAGS.session, value: tagValue(request.key) },
          { key: TASK_TAGS.user, value: tagValue(request.user) },
          { key: TASK_TAGS.pool, value: tagValue(pool.name) },
          { key: TASK_TAGS.createdAt, value: String(createdAt) },
        ],
    clientToken,
  };
}

/** Variables as a container override lists them (API_KeyValuePair). */
const keyValues = (variables: Record<string, string>) =>
  Object.entries(variables).map(([name, value]) => ({ name, value }));

/**
 * RunTask's idempotency token (≤ 64 ASCII characters): the same for the SDK's own resends of one call, new
 * for each of gridgate's tries, whose input differs (ECS answers a reused token with other input with
 * ConflictException).
 */
export function clientTokenFor(key: string, call: number): string {
  const base = /^[A-Za-z0-9_-]{1,48}$/.test(key)
    ? key
    : createHash('sha256').update(key).digest('hex').slice(0, 48);
  return `${base}-${call}`;
}

// ECS tag values (API_Tag: pattern ^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$, at most 256): letters, digits, space
// separators and _ . : / = + - @. Tabs and line breaks are not space separators: ECS refuses them.
export function tagValue(text: string): string {
  return text.replace(/[^\p{L}\p{N}\p{Z}_.:/=+\-@]/gu, '_').slice(0, 256);
}

/**
 * Starts the task and returns its ARN. RunTask itself is not aborted mid-call: a task it may have started
 * would have no ARN to stop, so the caller checks the signal once the ARN is in.
 */
export async function runTask(
  deps: RunTaskDeps,
  pool: DeployedEcsPool,
  request: TaskRequest,
  createdAt: number,
  options: RunTaskOptions = {},
): Promise<StartedTask> {
  const providers = options.providers ?? (pool.spot ? ['FARGATE_SPOT', 'FARGATE'] : ['FARGATE']);
  const tokenBase = options.tokenBase ?? request.key;
  let provider = 0;
  let call = 0;
  let waits = 0;
  let spotFallback: SpotFallback | undefined;
  for (;;) {
    request.signal.throwIfAborted();
    const current = providers[provider] as CapacityProvider;
    const input = runTaskInput(pool, request, current, clientTokenFor(tokenBase, call++), createdAt);
    const result = await tryRunTask(deps, input);
    if ('taskArn' in result) {
      return { taskArn: result.taskArn, ...(spotFallback ? { spotFallback } : {}) };
    }
    const fallback =
      (result.problem === 'capacity' || result.problem === 'quota') && provider < providers.length - 1;
    if (fallback) {
      provider++;
      spotFallback = result.problem === 'quota' ? 'quota' : 'no capacity';
      deps.metrics.count('SpotFallbacks', { pool: pool.name });
      continue;
    }
    // A vCPU quota does not come back in seconds: no retries, the new session fails now and says why.
    if (result.problem === 'other' || result.problem === 'quota' || waits + 1 >= RUN_TASK_TRIES) {
      const stage = result.problem === 'capacity' || result.problem === 'quota' ? 'capacity' : 'launch';
      const tries =
        result.problem === 'other' || result.problem === 'quota' ? '' : ` (${call} RunTask calls)`;
      throw new EcsLaunchFailure(stage, `RunTask on ${current} failed${tries}: ${result.message}`, {
        cause: result.cause,
      });
    }
    await deps.sleep(backoffMs(RUN_TASK_BACKOFF, waits++, deps.random), request.signal);
  }
}

type TryResult =
  | { taskArn: string }
  | { problem: 'capacity' | 'quota' | 'throttled' | 'other'; message: string; cause?: unknown };

async function tryRunTask(deps: RunTaskDeps, input: RunTaskCommandInput): Promise<TryResult> {
  try {
    const answer = await deps.ecs.send(new RunTaskCommand(input));
    const taskArn = answer.tasks?.[0]?.taskArn;
    if (taskArn) return { taskArn };
    const failure = answer.failures?.[0];
    const message = failure
      ? [failure.reason, failure.detail].filter(Boolean).join(': ') || 'no reason given'
      : 'ECS answered with neither a task nor a failure';
    return { problem: problemOf(message), message };
  } catch (error) {
    const message = `${(error as Error).name}: ${(error as Error).message}`;
    if (isThrottling(error)) return { problem: 'throttled', message, cause: error };
    return { problem: problemOf(error), message, cause: error };
  }
}

function problemOf(reasonOrError: unknown): 'capacity' | 'quota' | 'other' {
  if (isNoCapacity(reasonOrError)) return 'capacity';
  return isVcpuQuota(reasonOrError) ? 'quota' : 'other';
}
