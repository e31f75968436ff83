/**
 * EcsLauncher.start from RunTask to a ready browser: DescribeTasks polled with backoff, the stage a
 * failure is reported at (pull, launch, driver), the task stopped when it fails or the client goes away,
 * and the address checked against the pool networks; a real /status on 127.0.0.1 stands in for the
 * task's browser node, time is fake.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientException, DescribeTasksCommand, RunTaskCommand } from '@aws-sdk/client-ecs';
import { describe, expect, it } from 'vitest';
import type { LaunchStage } from '../../../functions/core/ports';
import {
  ecsMock,
  failureOf,
  fargatePool,
  harness,
  launchRequest,
  node,
  started,
  stopTaskInputs,
  TASK_ARN,
  TASK_ID,
  task,
  throttled,
} from '../../support/ecs-launcher-harness';

describe('EcsLauncher.start: the task becoming a browser', () => {
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
