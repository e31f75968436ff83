/**
 * EcsLauncher against a mocked ECS API (exact command inputs asserted) and a real /status endpoint on
 * 127.0.0.1 standing in for the task's browser node; time is fake, so no test waits on the clock.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ClientException,
  ClusterNotFoundException,
  DescribeTasksCommand,
  ECSClient,
  ECSServiceException,
  InvalidParameterException,
  RunTaskCommand,
  StopTaskCommand,
  TagResourceCommand,
  type Task,
} from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkEcsPool, EcsLauncher, EcsLaunchFailure } from '../../functions/adapters/aws/ecs-launcher';
import { clientTokenFor } from '../../functions/adapters/aws/ecs-run-task';
import type { EcsPoolConfig } from '../../functions/core/config';
import type {
  LaunchRequest,
  LaunchStage,
  MetricDimensions,
  MetricName,
  Metrics,
} from '../../functions/core/ports';
import type { WarmTask, WarmTaskStore } from '../../functions/core/warm-task-store';
import { useBrowserNodeStatus } from '../support/browser-node-status';
import { refuseAnyEcsCall } from '../support/ecs-api-rules';
import { CollectingLogger, FixedClock } from '../support/fakes';
import { MemoryWarmTasks } from '../support/memory-warm-tasks';
import { ecsPool } from '../support/one-pool-config';

const TASK_ID = '0123456789abcdef0123456789abcdef';
const TASK_ARN = `arn:aws:ecs:us-east-1:123456789012:task/gridgate-browsers/${TASK_ID}`;
const CAPACITY =
  'Capacity is unavailable at this time. Please try again later or in a different availability zone';

/** A browser node's /status on 127.0.0.1 whose readiness the test sets. */
const node = useBrowserNodeStatus();

const ecsMock = mockClient(ECSClient);

function fargatePool(overrides: Record<string, unknown> = {}): EcsPoolConfig {
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

class RecordingMetrics implements Metrics {
  readonly counts: { name: MetricName; dimensions?: MetricDimensions }[] = [];
  readonly timings: { name: MetricName; ms: number; dimensions?: MetricDimensions }[] = [];
  count(name: MetricName, dimensions?: MetricDimensions) {
    this.counts.push({ name, dimensions });
  }
  timing(name: MetricName, ms: number, dimensions?: MetricDimensions) {
    this.timings.push({ name, ms, dimensions });
  }
  gauge() {}
}

interface Harness {
  launcher: EcsLauncher;
  clock: FixedClock;
  waits: number[];
  metrics: RecordingMetrics;
  logger: CollectingLogger;
}

/** A launcher whose sleep only moves a fake clock (and honours the signal as the real one does). */
function harness(options: { onSleep?: (waits: number) => void; warm?: WarmTaskStore } = {}): Harness {
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

function launchRequest(pool: EcsPoolConfig, signal = new AbortController().signal): LaunchRequest {
  return {
    pool,
    key: '5f0c2a9e7d3b1c48',
    user: 'alice',
    idleTimeoutMs: 300_000,
    capabilities: { browserName: 'chrome', browserVersion: '156', 'goog:chromeOptions': { args: ['--x'] } },
    browserVersion: '156',
    signal,
  };
}

function task(lastStatus: string, extra: Partial<Task> = {}): Task {
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

const started = { tasks: [{ taskArn: TASK_ARN, lastStatus: 'PROVISIONING' }], failures: [] };

function runTaskInputs() {
  return ecsMock.commandCalls(RunTaskCommand).map((call) => call.args[0].input);
}
function stopTaskInputs() {
  return ecsMock.commandCalls(StopTaskCommand).map((call) => call.args[0].input);
}
const throttled = () =>
  new ECSServiceException({
    name: 'ThrottlingException',
    $fault: 'client',
    message: 'Rate exceeded',
    $metadata: { httpStatusCode: 400 },
  });

async function failureOf(promise: Promise<unknown>): Promise<EcsLaunchFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EcsLaunchFailure);
  return error as EcsLaunchFailure;
}

// The canned answers take anything; the inputs the launcher sent must still be ones ECS takes.
afterEach(() => refuseAnyEcsCall(ecsMock.calls() as never));

beforeEach(() => {
  ecsMock.reset();
  node.ready = () => true;
  node.requests = 0;
});

describe('EcsLauncher.start', () => {
  it('tags a user name with characters ECS refuses in tags (a tab, a line break, a semicolon) made safe', async () => {
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });
    await launcher.start({ ...launchRequest(fargatePool()), user: 'alice\tsmith\n;x' });
    expect(runTaskInputs()[0]?.tags).toContainEqual({ key: 'gridgate:user', value: 'alice_smith__x' });
  });

  it('runs a Spot task with the pool networking, tags and idle timeout, and returns its ENI address', async () => {
    const { launcher, metrics } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock
      .on(DescribeTasksCommand)
      .resolvesOnce({ tasks: [task('PROVISIONING')] })
      .resolvesOnce({ tasks: [task('PENDING')] })
      .resolves({ tasks: [task('RUNNING')] });
    const pool = fargatePool();

    const browser = await launcher.start(launchRequest(pool));

    expect(browser).toEqual({
      address: `127.0.0.1:${node.port}`,
      handle: TASK_ID,
      capabilities: { browserName: 'chrome', 'goog:chromeOptions': { args: ['--x'] } },
      billing: expect.any(Object),
    });
    expect(runTaskInputs()).toEqual([
      {
        cluster: 'gridgate-browsers',
        taskDefinition: 'gridgate-chrome:7',
        count: 1,
        capacityProviderStrategy: [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }],
        networkConfiguration: {
          awsvpcConfiguration: {
            subnets: ['subnet-a', 'subnet-b'],
            securityGroups: ['sg-browsers'],
            assignPublicIp: 'DISABLED',
          },
        },
        overrides: {
          containerOverrides: [
            { name: 'browser', environment: [{ name: 'SE_NODE_SESSION_TIMEOUT', value: '300' }] },
          ],
        },
        startedBy: 'gridgate',
        tags: [
          { key: 'gridgate', value: 'true' },
          { key: 'gridgate:session', value: '5f0c2a9e7d3b1c48' },
          { key: 'gridgate:user', value: 'alice' },
          { key: 'gridgate:pool', value: 'fargate' },
          { key: 'gridgate:created-at', value: String(Date.UTC(2025, 0, 1, 12, 0, 0)) },
        ],
        clientToken: '5f0c2a9e7d3b1c48-0',
      },
    ]);
    expect(runTaskInputs()[0]).not.toHaveProperty('launchType');
    expect(ecsMock.commandCalls(DescribeTasksCommand).map((c) => c.args[0].input)).toEqual([
      { cluster: 'gridgate-browsers', tasks: [TASK_ARN] },
      { cluster: 'gridgate-browsers', tasks: [TASK_ARN] },
      { cluster: 'gridgate-browsers', tasks: [TASK_ARN] },
    ]);
    expect(stopTaskInputs()).toEqual([]);
    expect(node.requests).toBe(1);
    expect(metrics.counts).toEqual([]);
    expect(metrics.timings.map((t) => t.dimensions)).toEqual([
      { pool: 'fargate', stage: 'launch' },
      { pool: 'fargate', stage: 'driver' },
    ]);
  });

  it('polls DescribeTasks with jittered waits growing from about 1 s to at most 5 s', async () => {
    const { launcher, waits } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    const pending = ecsMock.on(DescribeTasksCommand);
    for (let i = 0; i < 8; i++) pending.resolvesOnce({ tasks: [task('PENDING')] });
    pending.resolves({ tasks: [task('RUNNING')] });

    await launcher.start(launchRequest(fargatePool()));

    // random() = 0.5 → three quarters of each ceiling: 1000, 1500, 2250, 3375, then the 5000 cap.
    expect(waits).toEqual([750, 1125, 1688, 2531, 3750, 3750, 3750, 3750, 3750]);
  });

  it('keeps polling through a throttled DescribeTasks and a task not visible yet', async () => {
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock
      .on(DescribeTasksCommand)
      .rejectsOnce(throttled())
      // Right after RunTask, DescribeTasks may not know the task yet (eventual consistency).
      .resolvesOnce({ tasks: [], failures: [{ arn: TASK_ARN, reason: 'MISSING' }] })
      .resolves({ tasks: [task('RUNNING')] });

    const browser = await launcher.start(launchRequest(fargatePool()));

    expect(browser.handle).toBe(TASK_ID);
    expect(ecsMock.commandCalls(DescribeTasksCommand)).toHaveLength(3);
  });

  it('stops the task when DescribeTasks fails for another reason', async () => {
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock
      .on(DescribeTasksCommand)
      .rejects(new ClientException({ message: 'not authorized', $metadata: {} }));

    const failure = await failureOf(launcher.start(launchRequest(fargatePool())));

    expect(failure.message).toBe('launch: DescribeTasks failed: ClientException: not authorized');
    expect(stopTaskInputs()).toEqual([
      { cluster: 'gridgate-browsers', task: TASK_ARN, reason: 'gridgate: launch failed' },
    ]);
  });

  it('returns what the task is billed by: from its pull, at the rate of the provider ECS placed it with', async () => {
    const { launcher } = harness();
    const pullStartedAt = new Date(Date.UTC(2025, 0, 1, 12, 0, 2));
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock
      .on(DescribeTasksCommand)
      .resolves({ tasks: [task('RUNNING', { pullStartedAt, capacityProviderName: 'FARGATE_SPOT' })] });

    const browser = await launcher.start(launchRequest(fargatePool({ cpu: 2048, memory: 4096 })));

    expect(browser.billing).toEqual({
      billedFrom: pullStartedAt.getTime(),
      capacity: 'spot',
      vcpu: 2,
      memoryGb: 4,
      architecture: 'x86_64',
    });
    ecsMock
      .on(DescribeTasksCommand)
      .resolves({ tasks: [task('RUNNING', { capacityProviderName: 'FARGATE' })] });
    const fallback = await launcher.start(launchRequest(fargatePool()));
    expect(fallback.billing).toMatchObject({ capacity: 'on-demand', vcpu: 1, memoryGb: 2 });
  });

  it('runs on-demand Fargate only and with a public IP when the pool says so', async () => {
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    await launcher.start(
      launchRequest(fargatePool({ spot: false, assignPublicIp: true, containerName: 'chrome' })),
    );

    const [input] = runTaskInputs();
    expect(input?.capacityProviderStrategy).toEqual([{ capacityProvider: 'FARGATE', weight: 1 }]);
    expect(input?.networkConfiguration?.awsvpcConfiguration?.assignPublicIp).toBe('ENABLED');
    expect(input?.overrides?.containerOverrides?.[0]?.name).toBe('chrome');
  });

  it('falls back to on-demand Fargate when Spot reports no capacity in failures[]', async () => {
    const { launcher, metrics, waits } = harness();
    ecsMock
      .on(RunTaskCommand)
      .resolvesOnce({ tasks: [], failures: [{ reason: CAPACITY }] })
      .resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    const browser = await launcher.start(launchRequest(fargatePool()));

    expect(browser.handle).toBe(TASK_ID);
    const inputs = runTaskInputs();
    expect(inputs.map((i) => i.capacityProviderStrategy)).toEqual([
      [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }],
      [{ capacityProvider: 'FARGATE', weight: 1 }],
    ]);
    expect(inputs.map((i) => i.clientToken)).toEqual(['5f0c2a9e7d3b1c48-0', '5f0c2a9e7d3b1c48-1']);
    expect(inputs[1]).toEqual({
      ...inputs[0],
      capacityProviderStrategy: inputs[1]?.capacityProviderStrategy,
      clientToken: '5f0c2a9e7d3b1c48-1',
    });
    expect(metrics.counts).toEqual([{ name: 'SpotFallbacks', dimensions: { pool: 'fargate' } }]);
    // The fallback is immediate; the one wait is the first DescribeTasks poll.
    expect(waits).toHaveLength(1);
  });

  it('falls back to on-demand Fargate when Spot capacity is refused with an exception', async () => {
    const { launcher, metrics } = harness();
    ecsMock
      .on(RunTaskCommand)
      .rejectsOnce(new ClientException({ message: CAPACITY, $metadata: {} }))
      .resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    await launcher.start(launchRequest(fargatePool()));

    expect(runTaskInputs().map((i) => i.capacityProviderStrategy?.[0]?.capacityProvider)).toEqual([
      'FARGATE_SPOT',
      'FARGATE',
    ]);
    expect(metrics.counts).toEqual([{ name: 'SpotFallbacks', dimensions: { pool: 'fargate' } }]);
  });

  it('fails at the capacity stage when on-demand has no capacity either, after bounded retries', async () => {
    const { launcher, waits } = harness();
    ecsMock.on(RunTaskCommand).resolves({ tasks: [], failures: [{ reason: CAPACITY }] });

    const failure = await failureOf(launcher.start(launchRequest(fargatePool())));

    expect(failure.stage).toBe('capacity');
    expect(failure.outcome).toBe('unreachable');
    expect(failure.message).toMatch(
      /^capacity: RunTask on FARGATE failed \(6 RunTask calls\): Capacity is unavailable/,
    );
    // One Spot try, then five on-demand tries with four jittered waits between them.
    expect(runTaskInputs().map((i) => i.capacityProviderStrategy?.[0]?.capacityProvider)).toEqual([
      'FARGATE_SPOT',
      'FARGATE',
      'FARGATE',
      'FARGATE',
      'FARGATE',
      'FARGATE',
    ]);
    expect(waits).toEqual([750, 1500, 3000, 6000]);
    expect(stopTaskInputs()).toEqual([]);
  });

  it('retries a throttled RunTask with jittered backoff, then succeeds', async () => {
    const { launcher, waits } = harness();
    ecsMock.on(RunTaskCommand).rejectsOnce(throttled()).rejectsOnce(throttled()).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    const browser = await launcher.start(launchRequest(fargatePool()));

    expect(browser.handle).toBe(TASK_ID);
    expect(
      runTaskInputs().map((i) => [i.capacityProviderStrategy?.[0]?.capacityProvider, i.clientToken]),
    ).toEqual([
      ['FARGATE_SPOT', '5f0c2a9e7d3b1c48-0'],
      ['FARGATE_SPOT', '5f0c2a9e7d3b1c48-1'],
      ['FARGATE_SPOT', '5f0c2a9e7d3b1c48-2'],
    ]);
    expect(waits.slice(0, 2)).toEqual([750, 1500]);
  });

  it('gives up on a RunTask throttled on every try with a clear launch error, and has nothing to stop', async () => {
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).rejects(throttled());

    const failure = await failureOf(launcher.start(launchRequest(fargatePool())));

    expect(failure.stage).toBe('launch');
    expect(failure.message).toBe(
      'launch: RunTask on FARGATE_SPOT failed (5 RunTask calls): ThrottlingException: Rate exceeded',
    );
    expect(runTaskInputs()).toHaveLength(5);
    expect(stopTaskInputs()).toEqual([]);
  });

  it('surfaces any other RunTask error at once with the SDK message', async () => {
    const { launcher, waits } = harness();
    ecsMock
      .on(RunTaskCommand)
      .rejects(new ClusterNotFoundException({ message: 'Cluster not found.', $metadata: {} }));

    const failure = await failureOf(launcher.start(launchRequest(fargatePool())));

    expect(failure.message).toBe(
      'launch: RunTask on FARGATE_SPOT failed: ClusterNotFoundException: Cluster not found.',
    );
    expect(failure.outcome).toBe('unreachable');
    expect(runTaskInputs()).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('surfaces a RunTask failure other than capacity at once', async () => {
    const { launcher } = harness();
    ecsMock
      .on(RunTaskCommand)
      .resolves({ tasks: [], failures: [{ reason: 'MISSING', detail: 'task definition' }] });

    const failure = await failureOf(launcher.start(launchRequest(fargatePool())));

    expect(failure.message).toBe('launch: RunTask on FARGATE_SPOT failed: MISSING: task definition');
    expect(runTaskInputs()).toHaveLength(1);
  });

  it('stops the task and reports the pull stage when the image cannot be pulled', async () => {
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock
      .on(DescribeTasksCommand)
      .resolvesOnce({ tasks: [task('PENDING')] })
      .resolves({
        tasks: [
          task('STOPPED', {
            desiredStatus: 'STOPPED',
            stopCode: 'TaskFailedToStart',
            stoppedReason: 'Task failed to start',
            containers: [
              {
                name: 'browser',
                reason: 'CannotPullContainerError: pull image manifest has been retried 5 time(s): not found',
              },
            ],
          }),
        ],
      });

    const failure = await failureOf(launcher.start(launchRequest(fargatePool())));

    expect(failure.stage).toBe('pull');
    expect(failure.message).toBe(
      'pull: the task stopped before it ran: Task failed to start; browser: CannotPullContainerError: pull image manifest has been retried 5 time(s): not found',
    );
    expect(stopTaskInputs()).toEqual([
      { cluster: 'gridgate-browsers', task: TASK_ARN, reason: 'gridgate: pull failed' },
    ]);
    expect(node.requests).toBe(0);
  });

  it('stops the task and reports the launch stage when it stops before RUNNING for another reason', async () => {
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({
      tasks: [
        task('DEPROVISIONING', {
          desiredStatus: 'STOPPED',
          stoppedReason: 'Essential container in task exited',
        }),
      ],
    });

    const failure = await failureOf(launcher.start(launchRequest(fargatePool())));

    expect(failure.stage).toBe('launch');
    expect(failure.message).toBe(
      'launch: the task stopped before it ran: Essential container in task exited',
    );
    expect(stopTaskInputs()).toEqual([
      { cluster: 'gridgate-browsers', task: TASK_ARN, reason: 'gridgate: launch failed' },
    ]);
  });

  it('waits for /status to say ready, then returns', async () => {
    const { launcher, metrics } = harness();
    let answers = 0;
    node.ready = () => ++answers > 3;
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    await launcher.start(launchRequest(fargatePool()));

    expect(node.requests).toBe(4);
    const driver = metrics.timings.find((t) => t.dimensions?.stage === 'driver');
    expect(driver).toEqual({
      name: 'LaunchStageLatency',
      ms: 1500,
      dimensions: { pool: 'fargate', stage: 'driver' },
    });
    expect(stopTaskInputs()).toEqual([]);
  });

  it('stops the task and reports the driver stage when /status never says ready', async () => {
    const { launcher } = harness();
    node.ready = () => false;
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    const failure = await failureOf(launcher.start(launchRequest(fargatePool())));

    expect(failure.stage).toBe('driver');
    expect(failure.outcome).toBe('unreachable');
    expect(failure.message).toBe(
      `driver: http://127.0.0.1:${node.port}/status was not ready within 60 s (last answer: 200, ready: false)`,
    );
    expect(node.requests).toBe(121);
    expect(stopTaskInputs()).toEqual([
      { cluster: 'gridgate-browsers', task: TASK_ARN, reason: 'gridgate: driver not ready' },
    ]);
  });

  it('reports the driver stage when nothing listens at the task address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    const failure = await failureOf(launcher.start(launchRequest(fargatePool({ port }))));

    expect(failure.message).toMatch(/^driver: .* \(last answer: .*ECONNREFUSED/);
    expect(stopTaskInputs()).toHaveLength(1);
  });

  it('stops the task and rejects with the reason when aborted while waiting for RUNNING', async () => {
    const controller = new AbortController();
    const reason = new DOMException('the client went away', 'AbortError');
    const { launcher } = harness({ onSleep: (n) => n === 3 && controller.abort(reason) });
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('PENDING')] });

    await expect(launcher.start(launchRequest(fargatePool(), controller.signal))).rejects.toBe(reason);

    expect(ecsMock.commandCalls(DescribeTasksCommand)).toHaveLength(2);
    expect(stopTaskInputs()).toEqual([
      { cluster: 'gridgate-browsers', task: TASK_ARN, reason: 'gridgate: launch aborted' },
    ]);
  });

  it('stops the task it got when the signal aborted during RunTask', async () => {
    const controller = new AbortController();
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).callsFake(() => {
      controller.abort(new Error('deadline'));
      return started;
    });

    await expect(launcher.start(launchRequest(fargatePool(), controller.signal))).rejects.toThrow('deadline');

    expect(ecsMock.commandCalls(DescribeTasksCommand)).toHaveLength(0);
    expect(stopTaskInputs()).toEqual([
      { cluster: 'gridgate-browsers', task: TASK_ARN, reason: 'gridgate: launch aborted' },
    ]);
  });

  it('stops a task whose address lies outside the pool networks, never contacting it', async () => {
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    const failure = await failureOf(
      launcher.start(launchRequest(fargatePool({ networks: ['10.0.0.0/16'] }))),
    );

    expect(failure.message).toBe(
      `launch: the task's address 127.0.0.1:${node.port} is outside pools.fargate.networks`,
    );
    expect(node.requests).toBe(0);
    expect(stopTaskInputs()).toHaveLength(1);
  });

  it('refuses a pool the CDK app has not filled in, naming each missing key, without calling ECS', async () => {
    const { launcher } = harness();
    const pool = fargatePool({ cluster: undefined, subnets: undefined });

    const failure = await failureOf(launcher.start(launchRequest(pool)));

    expect(failure.stage).toBe('config');
    expect(failure.outcome).toBe('refused');
    expect(failure.message).toBe(
      'config: pools.fargate.cluster: not set (the CDK app sets it for the pools it deploys); ' +
        'pools.fargate.subnets: not set (the CDK app sets it for the pools it deploys)',
    );
    expect(ecsMock.calls()).toHaveLength(0);
  });
});

describe('checkEcsPool', () => {
  it('lists nothing for a complete pool and every missing key otherwise', () => {
    expect(checkEcsPool(fargatePool())).toEqual([]);
    const bare = fargatePool({
      cluster: undefined,
      taskDefinition: undefined,
      subnets: undefined,
      securityGroups: undefined,
      networks: undefined,
    });
    expect(checkEcsPool(bare).map((problem) => problem.split(':')[0])).toEqual([
      'pools.fargate.cluster',
      'pools.fargate.taskDefinition',
      'pools.fargate.subnets',
      'pools.fargate.securityGroups',
      'pools.fargate.networks',
    ]);
  });
});

describe('clientTokenFor', () => {
  it('stays within RunTask’s 64 characters for any session key', () => {
    expect(clientTokenFor('5f0c2a9e7d3b1c48', 3)).toBe('5f0c2a9e7d3b1c48-3');
    const long = clientTokenFor('k'.repeat(200), 12);
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).not.toBe(clientTokenFor('k'.repeat(199), 12));
  });
});

describe('EcsLauncher.stop', () => {
  it('stops the task by cluster and task ID with the reason', async () => {
    const { launcher } = harness();
    ecsMock.on(StopTaskCommand).resolves({});

    await launcher.stop(TASK_ID, { pool: fargatePool(), reason: 'deleted', upstreamId: 'abc' });

    expect(stopTaskInputs()).toEqual([
      { cluster: 'gridgate-browsers', task: TASK_ID, reason: 'gridgate: deleted' },
    ]);
  });

  it('takes a task that is already gone as stopped', async () => {
    const { launcher, logger } = harness();
    ecsMock
      .on(StopTaskCommand)
      .rejects(
        new InvalidParameterException({ message: 'The referenced task was not found.', $metadata: {} }),
      );

    await launcher.stop(TASK_ID, { pool: fargatePool(), reason: 'idle timeout', upstreamId: '' });

    expect(stopTaskInputs()).toHaveLength(1);
    expect(logger.events()).toEqual([]);
  });

  it('retries a throttled StopTask', async () => {
    const { launcher } = harness();
    ecsMock.on(StopTaskCommand).rejectsOnce(throttled()).resolves({});

    await launcher.stop(TASK_ID, { pool: fargatePool(), reason: 'max age', upstreamId: '' });

    expect(stopTaskInputs()).toHaveLength(2);
  });

  it('never throws: other errors are logged for the cleanup job to finish', async () => {
    const { launcher, logger } = harness();
    ecsMock
      .on(StopTaskCommand)
      .rejects(new ClusterNotFoundException({ message: 'Cluster not found.', $metadata: {} }));

    await expect(
      launcher.stop(TASK_ID, { pool: fargatePool(), reason: 'deleted', upstreamId: '' }),
    ).resolves.toBeUndefined();

    expect(logger.fieldsOf('BROWSER_STOP_FAILED')).toEqual([
      { pool: 'fargate', handle: TASK_ID, reason: 'ClusterNotFoundException: Cluster not found.' },
    ]);
  });

  it('stops nothing, and says so, for a pool with no cluster to find the task in', async () => {
    const { launcher, logger } = harness();

    await launcher.stop(TASK_ID, {
      pool: fargatePool({ cluster: undefined }),
      reason: 'deleted',
      upstreamId: '',
    });

    expect(ecsMock.calls()).toHaveLength(0);
    expect(logger.events()).toEqual(['BROWSER_STOP_FAILED']);
  });
});

describe('EcsLauncher.start: stages', () => {
  it('reports launch after RunTask, pull once while the image downloads, then driver once RUNNING', async () => {
    const { launcher } = harness();
    const pulling = { pullStartedAt: new Date(Date.UTC(2025, 0, 1, 12, 0, 1)) };
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock
      .on(DescribeTasksCommand)
      .resolvesOnce({ tasks: [task('PROVISIONING')] })
      .resolvesOnce({ tasks: [task('PENDING', pulling)] })
      .resolvesOnce({ tasks: [task('PENDING', pulling)] })
      .resolves({
        tasks: [task('RUNNING', { ...pulling, pullStoppedAt: new Date(Date.UTC(2025, 0, 1, 12, 0, 30)) })],
      });
    const stages: LaunchStage[] = [];

    await launcher.start({ ...launchRequest(fargatePool()), onStage: (stage) => stages.push(stage) });

    expect(stages).toEqual(['launch', 'pull', 'driver']);
  });
});

describe('EcsLauncher.start: warm pool', () => {
  const WARM_ID = 'fedcba9876543210fedcba9876543210';
  const WARM_ARN = `arn:aws:ecs:us-east-1:123456789012:task/gridgate-browsers/${WARM_ID}`;
  const CLAIM_AT = Date.UTC(2025, 0, 1, 12, 0, 0);

  function warmStore(address = `127.0.0.1:${node.port}`): MemoryWarmTasks {
    const store = new MemoryWarmTasks();
    const idle: WarmTask = {
      pool: 'fargate',
      taskId: WARM_ID,
      taskArn: WARM_ARN,
      address,
      startedAt: CLAIM_AT - 10 * 60_000,
      readyAt: CLAIM_AT - 9 * 60_000,
      state: 'idle',
    };
    store.tasks.set(WARM_ID, idle);
    return store;
  }
  const warmPool = () => fargatePool({ warm: { min: 1, max: 3 } });
  const tagInputs = () => ecsMock.commandCalls(TagResourceCommand).map((call) => call.args[0].input);

  it('claims an idle task instead of RunTask, tags it as the session’s, and goes straight to driver', async () => {
    const warm = warmStore();
    const { launcher } = harness({ warm });
    ecsMock.on(TagResourceCommand).resolves({});
    const stages: LaunchStage[] = [];

    const browser = await launcher.start({ ...launchRequest(warmPool()), onStage: (s) => stages.push(s) });

    expect(browser).toEqual({
      address: `127.0.0.1:${node.port}`,
      handle: WARM_ID,
      capabilities: { browserName: 'chrome', 'goog:chromeOptions': { args: ['--x'] } },
      // Billed since the warm task's own launch, ten minutes before the claim.
      billing: {
        billedFrom: CLAIM_AT - 10 * 60_000,
        capacity: 'spot',
        vcpu: 1,
        memoryGb: 2,
        architecture: 'x86_64',
      },
    });
    expect(stages).toEqual(['driver']);
    expect(runTaskInputs()).toEqual([]);
    expect(tagInputs()).toEqual([
      {
        resourceArn: WARM_ARN,
        tags: [
          { key: 'gridgate:warm', value: 'claimed' },
          { key: 'gridgate:session', value: '5f0c2a9e7d3b1c48' },
          { key: 'gridgate:user', value: 'alice' },
          { key: 'gridgate:created-at', value: String(CLAIM_AT) },
        ],
      },
    ]);
    expect(node.requests).toBe(1);
    expect(warm.tasks.get(WARM_ID)).toMatchObject({ state: 'claimed', session: '5f0c2a9e7d3b1c48' });
    expect(stopTaskInputs()).toEqual([]);
  });

  it('stops a claimed task that no longer answers /status and falls back to RunTask', async () => {
    // The node listens on 127.0.0.1 only: nothing answers here, as at the address of a task that died idle.
    const warm = warmStore(`127.0.0.9:${node.port}`);
    const { launcher, logger } = harness({ warm });
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });
    const stages: LaunchStage[] = [];

    const browser = await launcher.start({ ...launchRequest(warmPool()), onStage: (s) => stages.push(s) });

    expect(browser.handle).toBe(TASK_ID);
    expect(stopTaskInputs()).toEqual([
      {
        cluster: 'gridgate-browsers',
        task: WARM_ID,
        reason: expect.stringMatching(/^gridgate: warm task not ready/),
      },
    ]);
    expect(runTaskInputs()).toHaveLength(1);
    expect(tagInputs()).toEqual([]);
    expect(warm.tasks.has(WARM_ID)).toBe(false);
    expect(stages).toEqual(['driver', 'launch', 'driver']);
    expect(logger.fieldsOf('BROWSER_EXITED')[0]).toMatchObject({ pool: 'fargate', handle: WARM_ID });
  });

  it('retries a throttled TagResource', async () => {
    const { launcher, waits } = harness({ warm: warmStore() });
    ecsMock.on(TagResourceCommand).rejectsOnce(throttled()).resolves({});

    const browser = await launcher.start(launchRequest(warmPool()));

    expect(browser.handle).toBe(WARM_ID);
    expect(tagInputs()).toHaveLength(2);
    expect(waits).toEqual([150]);
  });

  it('gives a task it cannot tag up (stopped) and launches cold: untagged, the cleanup could not tell it is in use', async () => {
    const warm = warmStore();
    const { launcher } = harness({ warm });
    ecsMock
      .on(TagResourceCommand)
      .rejects(new ClientException({ message: 'not authorized to perform ecs:TagResource', $metadata: {} }));
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    const browser = await launcher.start(launchRequest(warmPool()));

    expect(browser.handle).toBe(TASK_ID);
    expect(stopTaskInputs()).toEqual([
      {
        cluster: 'gridgate-browsers',
        task: WARM_ID,
        reason: expect.stringMatching(/not tagged: ClientException/),
      },
    ]);
    expect(warm.tasks.has(WARM_ID)).toBe(false);
  });

  it('launches cold when no task is idle', async () => {
    const warm = new MemoryWarmTasks();
    const { launcher } = harness({ warm });
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    await launcher.start(launchRequest(warmPool()));

    expect(warm.calls).toEqual(['claim fargate']);
    expect(runTaskInputs()).toHaveLength(1);
  });

  it('launches cold, and says so, when the store fails', async () => {
    const warm = warmStore();
    warm.failure = new Error('the session store is unavailable');
    const { launcher, logger } = harness({ warm });
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    const browser = await launcher.start(launchRequest(warmPool()));

    expect(browser.handle).toBe(TASK_ID);
    expect(logger.fieldsOf('UPSTREAM_ERROR')).toEqual([
      expect.objectContaining({ operation: 'warm claim', error: 'the session store is unavailable' }),
    ]);
  });

  it('never claims for a pool without a warm setting', async () => {
    const warm = warmStore();
    const { launcher } = harness({ warm });
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    await launcher.start(launchRequest(fargatePool({ warm: { min: 0, max: 0 } })));

    expect(warm.calls).toEqual([]);
    expect(runTaskInputs()).toHaveLength(1);
  });

  it('stops the claimed task and rejects when the client goes away during the claim', async () => {
    const warm = warmStore();
    const { launcher } = harness({ warm });
    const client = new AbortController();
    ecsMock.on(TagResourceCommand).callsFake(() => {
      client.abort(new Error('client went away'));
      throw throttled();
    });

    await expect(launcher.start(launchRequest(warmPool(), client.signal))).rejects.toThrow(
      'client went away',
    );

    expect(stopTaskInputs()).toEqual([
      { cluster: 'gridgate-browsers', task: WARM_ID, reason: 'gridgate: launch aborted' },
    ]);
    expect(runTaskInputs()).toEqual([]);
  });
});
