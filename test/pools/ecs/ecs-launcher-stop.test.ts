/** EcsLauncher.stop: StopTask by cluster and task ID, a task already gone, throttling, never a throw. */
import { ClusterNotFoundException, InvalidParameterException, StopTaskCommand } from '@aws-sdk/client-ecs';
import { describe, expect, it } from 'vitest';
import {
  ecsMock,
  fargatePool,
  harness,
  stopTaskInputs,
  TASK_ID,
  throttled,
} from '../../support/ecs-launcher-harness';

describe('EcsLauncher.stop', () => {
  it('stops the task by cluster and task ID with the reason', async () => {
    const { launcher } = harness();
    ecsMock.on(StopTaskCommand).resolves({});

    await launcher.stop(TASK_ID, { key: 'k', pool: fargatePool(), reason: 'deleted', upstreamId: 'abc' });

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

    await launcher.stop(TASK_ID, { key: 'k', pool: fargatePool(), reason: 'idle timeout', upstreamId: '' });

    expect(stopTaskInputs()).toHaveLength(1);
    expect(logger.events()).toEqual([]);
  });

  it('retries a throttled StopTask', async () => {
    const { launcher } = harness();
    ecsMock.on(StopTaskCommand).rejectsOnce(throttled()).resolves({});

    await launcher.stop(TASK_ID, { key: 'k', pool: fargatePool(), reason: 'max age', upstreamId: '' });

    expect(stopTaskInputs()).toHaveLength(2);
  });

  it('never throws: other errors are logged for the cleanup job to finish', async () => {
    const { launcher, logger } = harness();
    ecsMock
      .on(StopTaskCommand)
      .rejects(new ClusterNotFoundException({ message: 'Cluster not found.', $metadata: {} }));

    await expect(
      launcher.stop(TASK_ID, { key: 'k', pool: fargatePool(), reason: 'deleted', upstreamId: '' }),
    ).resolves.toBeUndefined();

    expect(logger.fieldsOf('BROWSER_STOP_FAILED')).toEqual([
      { pool: 'fargate', handle: TASK_ID, reason: 'ClusterNotFoundException: Cluster not found.' },
    ]);
  });

  it('stops nothing, and says so, for a pool with no cluster to find the task in', async () => {
    const { launcher, logger } = harness();

    await launcher.stop(TASK_ID, {
      key: 'k',
      pool: fargatePool({ cluster: undefined }),
      reason: 'deleted',
      upstreamId: '',
    });

    expect(ecsMock.calls()).toHaveLength(0);
    expect(logger.events()).toEqual(['BROWSER_STOP_FAILED']);
  });
});
