/** The ECS orphan cleanup bringing the session store in line with ECS: records whose tasks are gone end. */
import { DescribeTasksCommand } from '@aws-sdk/client-ecs';
import { describe, expect, it } from 'vitest';
import { STARTED_BY } from '../../../functions/pools/ecs/task-tags';
import { ecs, MINUTE, SECOND, setup, stopped, T0 } from '../../support/orphan-cleanup-world';

describe('the cleanup over ecs tasks: reconciling the store', () => {
  it('ends a running record whose task no longer exists as "browser exited" and frees its slot', async () => {
    const { run, session, sessions, logger } = setup();
    const gone = 'feedfacefeedfacefeedfacefeedface';
    await session('vanished', gone);
    const report = await run();
    expect(ecs.inputs(DescribeTasksCommand)).toEqual([{ cluster: 'browsers-a', tasks: [gone] }]);
    expect(await sessions.get('vanished')).toMatchObject({ endReason: 'browser exited', endedAt: T0 });
    expect(await sessions.running()).toEqual([]);
    expect(await sessions.inUse()).toEqual({});
    expect(stopped()).toEqual([]);
    expect(report.reaped).toEqual({ 'browser exited': 1 });
    expect(logger.fieldsOf('SESSION_ENDED')).toMatchObject([
      { session: 'vanished', reason: 'browser exited' },
    ]);
  });

  it('ends a running record whose task Fargate Spot took back as "reclaimed"', async () => {
    const { run, session, sessions } = setup();
    const spot = ecs.add({
      cluster: 'browsers-a',
      createdAt: T0 - 5 * MINUTE,
      startedBy: STARTED_BY,
      desiredStatus: 'STOPPED',
      lastStatus: 'DEPROVISIONING',
      stopCode: 'SpotInterruption',
    });
    await session('interrupted', spot.id);
    const report = await run();
    expect(await sessions.get('interrupted')).toMatchObject({ endReason: 'reclaimed' });
    expect(await sessions.inUse()).toEqual({});
    expect(report.reaped).toEqual({ reclaimed: 1 });
  });

  it('keeps a record whose task the listing missed but DescribeTasks finds running', async () => {
    const { run, task, session, sessions } = setup();
    const fresh = task('fresh', 30 * SECOND);
    await session('fresh', fresh.id, { createdAt: T0 - 10 * SECOND });
    ecs.notListedYet.add(fresh.id);
    const report = await run();
    expect(ecs.inputs(DescribeTasksCommand)).toEqual([{ cluster: 'browsers-a', tasks: [fresh.id] }]);
    expect((await sessions.get('fresh'))?.endedAt).toBeUndefined();
    expect(stopped()).toEqual([]);
    expect(report.total).toBe(0);
  });

  it('leaves records of hub pools alone', async () => {
    const { run, session, sessions } = setup();
    await session('on-hub', 'hub-handle', { pool: 'hub' });
    await run();
    expect(ecs.inputs(DescribeTasksCommand)).toEqual([]);
    expect((await sessions.get('on-hub'))?.endedAt).toBeUndefined();
    expect(await sessions.inUse()).toEqual({ hub: 1 });
  });
});

/** One of every kind: kept, stopped and reconciled. */
