/** The cleanup on warm tasks a router claimed: kept while the session is made, judged as sessions after. */
import { describe, expect, it } from 'vitest';
import { sampleRecord } from '../../contract/store-samples';
import {
  CLUSTER,
  gridConfig,
  idOf,
  MINUTE,
  SECOND,
  setup,
  stopInputs,
  T0,
  warmTags,
} from '../../support/warm-pool-world';

describe('the cleanup on a warm pool: claimed tasks', () => {
  it('keeps a task claimed in the store but not tagged yet while its session is being created', async () => {
    const { run, model, warm, idleEntry } = setup(gridConfig({ min: 0, max: 3 }));
    const task = model.add(warmTags(T0 - 30 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 20 * MINUTE));
    await warm.claim('fargate', { key: 's1', at: T0 - 10 * SECOND });

    const report = await run();

    expect(stopInputs()).toEqual([]);
    expect(report.total).toBe(0);
    expect(warm.tasks.get(idOf(task))?.state).toBe('claimed');
  });

  it('stops a claimed task whose claim never became a session, as an orphan', async () => {
    const { run, model, warm, idleEntry } = setup(gridConfig({ min: 0, max: 3 }));
    const task = model.add(warmTags(T0 - 30 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 20 * MINUTE));
    await warm.claim('fargate', { key: 's1', at: T0 - 3 * MINUTE });

    const report = await run();

    expect(stopInputs()).toEqual([
      {
        cluster: CLUSTER,
        task: idOf(task),
        reason: 'gridgate cleanup: no session within the new-session timeout',
      },
    ]);
    expect(report.reaped).toEqual({ 'no session': 1 });
  });

  it('judges a task tagged claimed by its session like any session task, and forgets its entry', async () => {
    const { run, model, warm, idleEntry, sessions } = setup(gridConfig({ min: 0, max: 3 }));
    const task = model.add(warmTags(T0 - 10 * MINUTE, 'claimed', 's1'), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 20 * MINUTE));
    await warm.claim('fargate', { key: 's1', at: T0 - 10 * MINUTE });
    await sessions.acquire('s1', { pool: 'fargate', poolLimit: 5, user: 'u' });
    await sessions.add(
      sampleRecord('s1', { pool: 'fargate', handle: idOf(task), createdAt: T0 - 9 * MINUTE }),
    );

    const report = await run();

    expect(stopInputs()).toEqual([]);
    expect(report.total).toBe(0);
    expect(warm.tasks.size).toBe(0);
  });
});
