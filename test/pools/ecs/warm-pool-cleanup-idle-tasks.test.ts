/** The cleanup's care of idle warm tasks: registering the ready ones, TTLs, draining, forgetting the gone. */
import { describe, expect, it } from 'vitest';
import {
  CLUSTER,
  gridConfig,
  idOf,
  MINUTE,
  node,
  runTaskInputs,
  SECOND,
  setup,
  stopInputs,
  T0,
  warmTags,
} from '../../support/warm-pool-world';

describe('the cleanup on a warm pool: registering and stopping', () => {
  it('registers a RUNNING warm task whose /status says ready, and leaves one not answering as starting', async () => {
    const { run, model, warm } = setup(gridConfig({ min: 2, max: 2 }));
    const ready = model.add(warmTags(T0 - 40 * SECOND), 'RUNNING', '127.0.0.1');
    // Nothing listens on 127.0.0.9: a node still starting.
    const silent = model.add(warmTags(T0 - 30 * SECOND), 'RUNNING', '127.0.0.9');

    const report = await run();

    expect([...warm.tasks.values()]).toEqual([
      {
        pool: 'fargate',
        taskId: idOf(ready),
        taskArn: ready.taskArn,
        address: `127.0.0.1:${node.port}`,
        startedAt: T0 - 40 * SECOND,
        readyAt: T0,
        state: 'idle',
      },
    ]);
    expect(warm.tasks.has(idOf(silent))).toBe(false);
    expect(report.warm?.fargate).toMatchObject({ idle: 1, starting: 1, registered: 1, started: 0 });
    expect(stopInputs()).toEqual([]);
  });

  it('never reaps an idle warm task within its TTL, however old the task', async () => {
    const { run, model, warm, idleEntry } = setup();
    // Older than newSession + maxAge + grace: a session task this old would be stopped.
    const task = model.add(warmTags(T0 - 2 * 60 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 9 * MINUTE));

    const report = await run();

    expect(stopInputs()).toEqual([]);
    expect(report.total).toBe(0);
    expect(report.warm?.fargate).toMatchObject({ idle: 1, started: 0 });
  });

  it('stops an idle task past its TTL, forgets it, replaces it, and counts no orphan', async () => {
    const { run, model, warm, idleEntry, metrics } = setup();
    const task = model.add(warmTags(T0 - 30 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 11 * MINUTE));

    const report = await run();

    expect(stopInputs()).toEqual([
      { cluster: CLUSTER, task: idOf(task), reason: 'gridgate cleanup: warm task idle past its TTL' },
    ]);
    expect(warm.tasks.size).toBe(0);
    expect(report.warm?.fargate).toMatchObject({ stopped: { 'warm expired': 1 }, started: 1 });
    expect(report.reaped).toEqual({});
    expect(metrics.counts.filter((c) => c.name === 'OrphansReaped')).toEqual([]);
  });

  it('leaves a task past its TTL that a router claimed after the cleanup read the store', async () => {
    const { run, model, warm, idleEntry } = setup(gridConfig({ min: 0, max: 3, idleTtl: '10m' }));
    const task = model.add(warmTags(T0 - 30 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 11 * MINUTE));
    const list = warm.list.bind(warm);
    warm.list = async (pool) => {
      const read = await list(pool);
      await warm.claim(pool, { key: 's1', at: T0 });
      return read;
    };

    const report = await run();

    expect(stopInputs()).toEqual([]);
    expect(warm.tasks.get(idOf(task))).toMatchObject({ state: 'claimed', session: 's1' });
    expect(report.warm?.fargate?.stopped).toEqual({});
  });

  it('stops a warm task that got no store entry within the new-session timeout', async () => {
    const { run, model } = setup(gridConfig({ min: 0, max: 3 }));
    const task = model.add(warmTags(T0 - 3 * MINUTE), 'PENDING');

    const report = await run();

    expect(stopInputs()).toEqual([
      { cluster: CLUSTER, task: idOf(task), reason: 'gridgate cleanup: warm task never became ready' },
    ]);
    expect(report.warm?.fargate?.stopped).toEqual({ 'warm never ready': 1 });
  });

  it('drains the warm tasks of a pool that no longer keeps any', async () => {
    const { run, model, warm, idleEntry } = setup(gridConfig(null));
    const task = model.add(warmTags(T0 - 5 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - MINUTE));

    const report = await run();

    expect(stopInputs().map((input) => input.task)).toEqual([idOf(task)]);
    expect(runTaskInputs()).toEqual([]);
    expect(warm.tasks.size).toBe(0);
    expect(report.warm?.fargate?.stopped).toEqual({ 'warm expired': 1 });
  });

  it('forgets the entry of a warm task that is gone', async () => {
    const { run, model, warm, idleEntry } = setup(gridConfig({ min: 0, max: 3 }));
    const gone = model.add(warmTags(T0 - 5 * MINUTE), 'STOPPED', '127.0.0.1');
    gone.desiredStatus = 'STOPPED';
    await warm.register(idleEntry(gone, T0 - MINUTE));

    await run();

    expect(warm.tasks.size).toBe(0);
  });
});
