/**
 * EcsLauncher.start with a warm pool: an idle task claimed and tagged instead of RunTask, and each way
 * the claim falls back to a cold launch (no idle task, a dead one, untaggable, a failing store).
 */
import {
  ClientException,
  DescribeTasksCommand,
  RunTaskCommand,
  TagResourceCommand,
} from '@aws-sdk/client-ecs';
import { describe, expect, it } from 'vitest';
import type { LaunchStage } from '../../../functions/core/ports';
import type { WarmTask } from '../../../functions/core/warm-task-store';
import {
  ecsMock,
  fargatePool,
  harness,
  launchRequest,
  node,
  runTaskInputs,
  started,
  stopTaskInputs,
  TASK_ID,
  task,
  throttled,
} from '../../support/ecs-launcher-harness';
import { MemoryWarmTasks } from '../../support/memory-warm-tasks';

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
    const { launcher, metrics } = harness({ warm });
    ecsMock.on(TagResourceCommand).resolves({});
    const stages: LaunchStage[] = [];

    const browser = await launcher.start({ ...launchRequest(warmPool()), onStage: (s) => stages.push(s) });
    // Counted as a warm start, apart from cold ones, on the dashboard.
    expect(metrics.timings.filter((t) => t.name === 'BrowserStartLatency').map((t) => t.dimensions)).toEqual([
      { pool: 'fargate', start: 'warm' },
    ]);

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

  it('launches cold for a session asking its own time zone or screen size, which no warm task has', async () => {
    const warm = warmStore();
    const { launcher } = harness({ warm });
    ecsMock.on(RunTaskCommand).resolves(started);
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [task('RUNNING')] });

    for (const asked of [{ 'se:timeZone': 'Europe/Berlin' }, { 'se:screenResolution': '1024x768' }]) {
      const request = launchRequest(warmPool());
      const browser = await launcher.start({
        ...request,
        capabilities: { ...request.capabilities, ...asked },
      });
      expect(browser.handle).toBe(TASK_ID);
    }

    expect(warm.calls).toEqual([]);
    expect(runTaskInputs()).toHaveLength(2);
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
