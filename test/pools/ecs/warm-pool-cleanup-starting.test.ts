/** The cleanup topping a warm pool up: how many tasks it starts, how they are tagged, throttling, dry runs. */
import { ECSServiceException } from '@aws-sdk/client-ecs';
import { describe, expect, it } from 'vitest';
import {
  CLUSTER,
  idOf,
  MINUTE,
  runTaskInputs,
  SECOND,
  setup,
  stopInputs,
  T0,
  warmTags,
} from '../../support/warm-pool-world';

describe('the cleanup on a warm pool: starting tasks', () => {
  it('tops an empty pool up to min with Spot tasks tagged warm and unclaimed, for no session', async () => {
    const { run } = setup();

    const report = await run();

    const inputs = runTaskInputs();
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toMatchObject({
      cluster: CLUSTER,
      taskDefinition: 'gridgate-chrome:3',
      count: 1,
      capacityProviderStrategy: [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }],
      startedBy: 'gridgate',
      overrides: {
        containerOverrides: [
          { name: 'browser', environment: [{ name: 'SE_NODE_SESSION_TIMEOUT', value: '300' }] },
        ],
      },
      tags: warmTags(T0),
    });
    expect(inputs[0]?.clientToken).toMatch(/^warm-[0-9a-f-]{36}-0$/);
    expect(report.warm).toEqual({
      fargate: { target: 1, idle: 0, starting: 1, registered: 0, started: 1, stopped: {} },
    });
  });

  it('sizes the pool from the busiest recent minute, within max and the free capacity', async () => {
    const { run, starts, sessions } = setup();
    // Four sessions started in one minute five minutes ago; three slots of five are held now.
    for (const s of [5, 5.2, 5.5, 5.9]) starts.push({ pool: 'fargate', createdAt: T0 - s * MINUTE });
    for (const key of ['a', 'b', 'c'])
      await sessions.acquire(key, { pool: 'fargate', poolLimit: 5, user: 'u' });

    const report = await run();

    // Target 3 (four capped at max), but only 5 - 3 = 2 are free.
    expect(report.warm?.fargate).toMatchObject({ target: 3, started: 2 });
    expect(runTaskInputs()).toHaveLength(2);
  });

  it('counts warm tasks still starting, and starts none past the target', async () => {
    const { run, model } = setup();
    model.add(warmTags(T0 - 20 * SECOND), 'PENDING');

    const report = await run();

    expect(report.warm?.fargate).toMatchObject({ target: 1, starting: 1, started: 0 });
    expect(runTaskInputs()).toEqual([]);
  });

  it('reports a throttled RunTask and tries again next pass, the rest of the pass done', async () => {
    const { run, model } = setup();
    model.runTask = () =>
      new ECSServiceException({
        name: 'ThrottlingException',
        $fault: 'client',
        message: 'Rate exceeded',
        $metadata: { httpStatusCode: 400 },
      });

    const report = await run();

    expect(report.warm?.fargate).toMatchObject({
      started: 0,
      error: expect.stringMatching(/ThrottlingException/),
    });
    expect(report.clusters).toEqual([{ cluster: CLUSTER, tasks: 0, status: 'done' }]);
  });

  it('decides but neither starts nor stops anything in a dry run', async () => {
    const { run, model, warm, idleEntry, clock } = setup();
    const old = model.add(warmTags(T0 - 30 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(old, T0 - 20 * MINUTE));
    clock.advance(0);

    const report = await run({ dryRun: true });

    expect(report.warm?.fargate).toMatchObject({ started: 1, stopped: { 'warm expired': 1 } });
    expect(runTaskInputs()).toEqual([]);
    expect(stopInputs()).toEqual([]);
    expect(warm.tasks.has(idOf(old))).toBe(true);
  });
});
