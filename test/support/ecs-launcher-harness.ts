/**
 * What the EcsLauncher tests share: a mocked ECS API (the inputs the launcher sent are checked against
 * what ECS takes after each test), a browser node's /status on 127.0.0.1 standing in for the task's,
 * a launcher whose sleep only moves a fake clock, and the ECS answers the tests build on.
 */
import {
  ECSClient,
  ECSServiceException,
  RunTaskCommand,
  StopTaskCommand,
  type Task,
} from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, expect } from 'vitest';
import type { EcsPoolConfig } from '../../functions/core/config';
import type { LaunchRequest } from '../../functions/core/ports';
import type { WarmTaskStore } from '../../functions/core/warm-task-store';
import { EcsLauncher, EcsLaunchFailure } from '../../functions/pools/ecs/ecs-launcher';
import { useBrowserNodeStatus } from './browser-node-status';
import { refuseAnyEcsCall } from './ecs-api-rules';
import { CollectingLogger, FixedClock, RecordingMetrics } from './fakes';
import { ecsPool } from './one-pool-config';

export const TASK_ID = '0123456789abcdef0123456789abcdef';
export const TASK_ARN = `arn:aws:ecs:us-east-1:123456789012:task/gridgate-browsers/${TASK_ID}`;
export const CAPACITY =
  'Capacity is unavailable at this time. Please try again later or in a different availability zone';

/** A browser node's /status on 127.0.0.1 whose readiness the test sets (one per test file importing this). */
export const node = useBrowserNodeStatus();

export const ecsMock = mockClient(ECSClient);

// The canned answers take anything; the inputs the launcher sent must still be ones ECS takes.
afterEach(() => refuseAnyEcsCall(ecsMock.calls() as never));

beforeEach(() => {
  ecsMock.reset();
  node.ready = () => true;
  node.requests = 0;
});

export function fargatePool(overrides: Record<string, unknown> = {}): EcsPoolConfig {
  return ecsPool({
    cluster: 'gridgate-browsers',
    taskDefinition: 'gridgate-chrome:7',
    subnets: ['subnet-a', 'subnet-b'],
    securityGroups: ['sg-browsers'],
    networks: ['127.0.0.0/8'],
    port: node.port,
    ...overrides,
  });
}

export interface Harness {
  launcher: EcsLauncher;
  clock: FixedClock;
  waits: number[];
  metrics: RecordingMetrics;
  logger: CollectingLogger;
}

/** A launcher whose sleep only moves a fake clock (and honours the signal as the real one does). */
export function harness(options: { onSleep?: (waits: number) => void; warm?: WarmTaskStore } = {}): Harness {
  const clock = new FixedClock();
  const waits: number[] = [];
  const metrics = new RecordingMetrics();
  const logger = new CollectingLogger();
  const launcher = new EcsLauncher({
    ecs: new ECSClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' },
    }),
    metrics,
    logger,
    clock,
    warm: options.warm,
    random: () => 0.5,
    sleep: async (ms, signal) => {
      signal.throwIfAborted();
      waits.push(ms);
      clock.advance(ms);
      options.onSleep?.(waits.length);
      await Promise.resolve();
      signal.throwIfAborted();
    },
  });
  return { launcher, clock, waits, metrics, logger };
}

export function launchRequest(
  pool: EcsPoolConfig,
  signal = new AbortController().signal,
): LaunchRequest<EcsPoolConfig> {
  return {
    pool,
    key: '5f0c2a9e7d3b1c48',
    user: 'alice',
    idleTimeoutMs: 300_000,
    inUseMs: 3_660_000,
    capabilities: { browserName: 'chrome', browserVersion: '156', 'goog:chromeOptions': { args: ['--x'] } },
    browserVersion: '156',
    signal,
  };
}

export function task(lastStatus: string, extra: Partial<Task> = {}): Task {
  const attached = lastStatus !== 'PROVISIONING';
  return {
    taskArn: TASK_ARN,
    lastStatus,
    desiredStatus: 'RUNNING',
    attachments: [
      {
        type: 'ElasticNetworkInterface',
        status: attached ? 'ATTACHED' : 'PRECREATED',
        details: [
          { name: 'subnetId', value: 'subnet-a' },
          ...(attached
            ? [
                { name: 'networkInterfaceId', value: 'eni-0abc' },
                { name: 'privateIPv4Address', value: '127.0.0.1' },
              ]
            : []),
        ],
      },
    ],
    ...extra,
  };
}

export const started = { tasks: [{ taskArn: TASK_ARN, lastStatus: 'PROVISIONING' }], failures: [] };

export function runTaskInputs() {
  return ecsMock.commandCalls(RunTaskCommand).map((call) => call.args[0].input);
}
export function stopTaskInputs() {
  return ecsMock.commandCalls(StopTaskCommand).map((call) => call.args[0].input);
}
export const throttled = () =>
  new ECSServiceException({
    name: 'ThrottlingException',
    $fault: 'client',
    message: 'Rate exceeded',
    $metadata: { httpStatusCode: 400 },
  });

export async function failureOf(promise: Promise<unknown>): Promise<EcsLaunchFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EcsLaunchFailure);
  return error as EcsLaunchFailure;
}
