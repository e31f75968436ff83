/** The ECS orphan cleanup finding gridgate's tasks and deciding which stop: live, unrecorded, ended, too old. */
import { DescribeTasksCommand, ListTasksCommand } from '@aws-sdk/client-ecs';
import { describe, expect, it } from 'vitest';
import { STARTED_BY } from '../../../functions/pools/ecs/task-tags';
import { ecs, GRACE, LISTING, MINUTE, SECOND, setup, stopped, T0 } from '../../support/orphan-cleanup-world';

describe('the cleanup over ecs tasks: finding tasks', () => {
  it('follows ListTasks past 100 tasks and describes them with their tags in batches of 100', async () => {
    const { run, task } = setup();
    // 250 launches 10 s old, except two on the last page that never got a session.
    const tasks = Array.from({ length: 250 }, (_, i) =>
      task(`k${i}`, i === 201 || i === 249 ? 5 * MINUTE : 10 * SECOND),
    );
    const report = await run();

    const listings = ecs.inputs(ListTasksCommand);
    expect(listings).toHaveLength(4);
    expect(listings[0]).toEqual({ cluster: 'browsers-a', ...LISTING });
    expect(listings[1]).toEqual({ cluster: 'browsers-a', ...LISTING, nextToken: expect.any(String) });
    expect(listings[2]).toEqual({ cluster: 'browsers-a', ...LISTING, nextToken: expect.any(String) });
    expect(listings[2]?.nextToken).not.toBe(listings[1]?.nextToken);
    expect(listings[3]).toEqual({ cluster: 'browsers-b', ...LISTING });

    const arns = tasks.map((t) => t.arn);
    expect(ecs.inputs(DescribeTasksCommand)).toEqual([
      { cluster: 'browsers-a', tasks: arns.slice(0, 100), include: ['TAGS'] },
      { cluster: 'browsers-a', tasks: arns.slice(100, 200), include: ['TAGS'] },
      { cluster: 'browsers-a', tasks: arns.slice(200, 250), include: ['TAGS'] },
    ]);
    expect(stopped().map((input) => input.task)).toEqual([tasks[201]?.id, tasks[249]?.id]);
    expect(report.clusters).toEqual([
      { cluster: 'browsers-a', tasks: 250, status: 'done' },
      { cluster: 'browsers-b', tasks: 0, status: 'done' },
    ]);
  });

  it('lists only the clusters of ecs pools, each once', async () => {
    const { run } = setup();
    await run();
    expect(ecs.inputs(ListTasksCommand).map((input) => input.cluster)).toEqual(['browsers-a', 'browsers-b']);
  });
});

describe('the cleanup over ecs tasks: which tasks stop', () => {
  it('keeps the task of a live session', async () => {
    const { run, task, session } = setup();
    await session('live', task('live', 5 * MINUTE).id);
    const report = await run();
    expect(stopped()).toEqual([]);
    expect(report.total).toBe(0);
  });

  it('keeps a task without a record while the new-session timeout has not passed', async () => {
    const { run, task } = setup();
    task('creating', 60 * SECOND + GRACE);
    expect((await run()).total).toBe(0);
    expect(stopped()).toEqual([]);
  });

  it('stops a task whose session never got a record within the timeout, and frees the slot its launch took', async () => {
    const { run, task, sessions } = setup();
    const orphan = task('half-made', 60 * SECOND + GRACE + SECOND);
    await sessions.acquire('half-made', { pool: 'spot-a', poolLimit: 4, user: 'guest' });
    const report = await run();
    expect(stopped()).toEqual([
      {
        cluster: 'browsers-a',
        task: orphan.id,
        reason: 'gridgate cleanup: no session within the new-session timeout',
      },
    ]);
    expect(await sessions.inUse()).toEqual({});
    expect(report.reaped).toEqual({ 'no session': 1 });
    expect(report.items).toEqual([
      { cluster: 'browsers-a', reason: 'no session', task: orphan.id, session: 'half-made', pool: 'spot-a' },
    ]);
  });

  it('stops a task whose session has ended', async () => {
    const { run, task, session, sessions } = setup();
    const browser = task('done', 5 * MINUTE);
    await session('done', browser.id);
    await sessions.end('done', 'deleted', T0 - SECOND);
    const report = await run();
    expect(stopped()).toEqual([
      { cluster: 'browsers-a', task: browser.id, reason: 'gridgate cleanup: its session has ended' },
    ]);
    expect(report.reaped).toEqual({ 'session ended': 1 });
    expect((await sessions.get('done'))?.endReason).toBe('deleted');
  });

  it('stops the task of a session past its maximum age, ends the session as "max age" and frees its slot', async () => {
    const { run, task, session, sessions, logger } = setup();
    const browser = task('old', 11 * MINUTE);
    await session('old', browser.id, { createdAt: T0 - 10 * MINUTE, maxAgeMs: 10 * MINUTE });
    const report = await run();
    expect(stopped()).toEqual([
      {
        cluster: 'browsers-a',
        task: browser.id,
        reason: 'gridgate cleanup: older than any session may live',
      },
    ]);
    expect(await sessions.get('old')).toMatchObject({ endReason: 'max age', endedAt: T0 });
    expect(await sessions.inUse()).toEqual({});
    expect(report.reaped).toEqual({ 'max age': 1 });
    expect(logger.fieldsOf('SESSION_TIMED_OUT')).toEqual([
      { session: 'old', user: 'guest', pool: 'spot-a', reason: 'max age', durationMs: 10 * MINUTE },
    ]);
  });

  it('judges a task without gridgate tags by its age alone', async () => {
    const { run } = setup();
    const young = ecs.add({ cluster: 'browsers-a', createdAt: T0 - 30 * MINUTE, startedBy: STARTED_BY });
    const ancient = ecs.add({
      cluster: 'browsers-a',
      createdAt: T0 - 2 * 60 * MINUTE,
      startedBy: STARTED_BY,
    });
    const report = await run();
    expect(stopped().map((input) => input.task)).toEqual([ancient.id]);
    expect(report.items).toEqual([{ cluster: 'browsers-a', reason: 'max age', task: ancient.id }]);
    expect(ecs.tasks.get(young.id)?.desiredStatus).toBe('RUNNING');
  });

  it('never sees tasks other software started in the same cluster', async () => {
    const { run } = setup();
    ecs.add({
      cluster: 'browsers-a',
      createdAt: T0 - 5 * 60 * MINUTE,
      startedBy: 'ecs-svc/9223370556150183303',
    });
    expect((await run()).total).toBe(0);
    expect(ecs.inputs(DescribeTasksCommand)).toEqual([]);
  });
});
