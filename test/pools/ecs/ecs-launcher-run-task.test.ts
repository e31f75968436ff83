/**
 * EcsLauncher.start asking ECS for a task: the RunTask input (networking, tags, capacity providers,
 * client token), Spot's fallback to on-demand, throttling and errors, and the pool checks before any
 * call; against a mocked ECS API with exact inputs asserted, time fake.
 */
import {
  ClientException,
  ClusterNotFoundException,
  DescribeTasksCommand,
  RunTaskCommand,
} from '@aws-sdk/client-ecs';
import { describe, expect, it } from 'vitest';
import { checkEcsPool } from '../../../functions/pools/ecs/ecs-launcher';
import { clientTokenFor } from '../../../functions/pools/ecs/ecs-run-task';
import {
  CAPACITY,
  ecsMock,
  failureOf,
  fargatePool,
  harness,
  launchRequest,
  node,
  runTaskInputs,
  started,
  stopTaskInputs,
  TASK_ARN,
  TASK_ID,
  task,
  throttled,
} from '../../support/ecs-launcher-harness';

describe('EcsLauncher.start: RunTask', () => {
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
    expect(metrics.timings.map((t) => [t.name, t.dimensions])).toEqual([
      ['LaunchStageLatency', { pool: 'fargate', stage: 'launch' }],
      ['LaunchStageLatency', { pool: 'fargate', stage: 'driver' }],
      // The whole start, as the dashboard's cold-vs-warm graph shows it.
      ['BrowserStartLatency', { pool: 'fargate', start: 'cold' }],
    ]);
  });

  it("starts the browser and its recorder with the session's time zone and screen, the window at that size", async () => {
    const { launcher } = harness();
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });
    const request = launchRequest(fargatePool({ recorder: { image: 'selenium/video:ffmpeg-7.1-20250606' } }));
    const browser = await launcher.start({
      ...request,
      capabilities: {
        ...request.capabilities,
        'se:timeZone': 'Asia/Tokyo',
        'se:screenResolution': '1366x768',
      },
    });

    const session = [
      { name: 'TZ', value: 'Asia/Tokyo' },
      { name: 'SE_SCREEN_WIDTH', value: '1366' },
      { name: 'SE_SCREEN_HEIGHT', value: '768' },
    ];
    // Checked against RunTask's rules after the test (ecs-launcher-harness.ts), the recorder's override too.
    expect(runTaskInputs()[0]?.overrides).toEqual({
      containerOverrides: [
        { name: 'browser', environment: [{ name: 'SE_NODE_SESSION_TIMEOUT', value: '300' }, ...session] },
        { name: 'video', environment: session },
      ],
    });
    expect(browser.capabilities['goog:chromeOptions']).toEqual({
      args: ['--x', '--window-size=1366,768', '--screen-info={1366x768}'],
    });
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
