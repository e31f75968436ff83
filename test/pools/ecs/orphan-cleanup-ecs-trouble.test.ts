/** The ECS orphan cleanup when ECS throttles or fails: the other clusters go on, nothing is decided blind. */
import { describe, expect, it } from 'vitest';
import { ecsError } from '../../support/ecs-tasks-mock';
import { ecs, MINUTE, setup, stopped } from '../../support/orphan-cleanup-world';

describe('the cleanup over ecs tasks: ECS trouble', () => {
  it('carries on with the other clusters when one is throttled, and leaves that cluster’s records alone', async () => {
    const { run, task, session, sessions } = setup();
    ecs.fail('ListTasks', 'browsers-a', ecsError('ThrottlingException', 'Rate exceeded'));
    task('stuck-a', 5 * MINUTE);
    await session('looks-gone', 'feedfacefeedfacefeedfacefeedface');
    const orphanB = task('stuck-b', 5 * MINUTE, 'spot-b');
    const report = await run();
    expect(stopped().map((input) => input.task)).toEqual([orphanB.id]);
    expect(report.clusters).toEqual([
      {
        cluster: 'browsers-a',
        tasks: 0,
        status: 'throttled',
        error: expect.stringContaining('Rate exceeded'),
      },
      { cluster: 'browsers-b', tasks: 1, status: 'done' },
    ]);
    // Without a complete listing, a missing task proves nothing.
    expect((await sessions.get('looks-gone'))?.endedAt).toBeUndefined();
  });

  it('carries on with the other clusters when one fails outright', async () => {
    const { run, task } = setup();
    ecs.fail('DescribeTasks', 'browsers-a', ecsError('ClusterNotFoundException', 'Cluster not found.'));
    task('x', 5 * MINUTE);
    const orphanB = task('y', 5 * MINUTE, 'spot-b');
    const report = await run();
    expect(stopped().map((input) => input.task)).toEqual([orphanB.id]);
    expect(report.clusters[0]).toMatchObject({ cluster: 'browsers-a', status: 'failed' });
  });

  it('leaves the rest of a cluster for the next pass when StopTask is throttled, changing nothing for them', async () => {
    const { run, task, session, sessions } = setup();
    const orphans = [task('a', 5 * MINUTE), task('b', 5 * MINUTE), task('c', 5 * MINUTE)];
    for (const key of ['a', 'b', 'c'])
      await sessions.acquire(key, { pool: 'spot-a', poolLimit: 9, user: 'guest' });
    await session('vanished', 'feedfacefeedfacefeedfacefeedface');
    ecs.throttleStopsAfter(1);
    const first = await run();
    // Ending a record needs no ECS call: throttled stops do not hold it up.
    expect(first.reaped).toEqual({ 'browser exited': 1, 'no session': 1 });
    expect(first.total).toBe(2);
    expect(first.deferred).toBe(2);
    expect(first.clusters[0]).toMatchObject({ status: 'throttled' });
    expect(await sessions.inUse()).toEqual({ 'spot-a': 2 });

    ecs.throttleStopsAfter(Number.POSITIVE_INFINITY);
    const second = await run();
    expect(second.items.map((item) => item.task)).toEqual([orphans[1]?.id, orphans[2]?.id]);
    expect(await sessions.inUse()).toEqual({});
  });

  it('counts a task that vanished before its StopTask as stopped', async () => {
    const { run, task } = setup();
    const orphan = task('a', 5 * MINUTE);
    ecs.goneBeforeStop.add(orphan.id);
    const report = await run();
    expect(stopped()).toEqual([expect.objectContaining({ task: orphan.id })]);
    expect(report.reaped).toEqual({ 'no session': 1 });
    expect(report.clusters[0]?.status).toBe('done');
  });
});
