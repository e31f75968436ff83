/**
 * /status and the status page show an ecs pool's idle warm tasks, read from the launcher's warm-task store:
 * only for pools with a `warm` setting, and a failed read never fails /status.
 */
import type { ECSClient } from '@aws-sdk/client-ecs';
import { afterEach, describe, expect, it } from 'vitest';
import type { WarmTask } from '../../functions/core/warm-task-store';
import type { Overview } from '../../functions/http/ui/ui-views';
import { EcsLauncher } from '../../functions/pools/ecs/ecs-launcher';
import { type FakeGrid, startFakeGrid } from '../support/fake-grid';
import { MemoryWarmTasks } from '../support/memory-warm-tasks';
import { unreachableEcsClient } from '../support/unreachable-ecs-client';

const DEPLOYED = {
  kind: 'ecs',
  cluster: 'gridgate-browsers',
  taskDefinition: 'gridgate-chrome:7',
  subnets: ['subnet-a'],
  securityGroups: ['sg-browsers'],
  networks: ['10.0.0.0/16'],
};

let grid: FakeGrid;
let ecs: ECSClient;
afterEach(async () => {
  ecs.destroy();
  await grid.close();
});

function task(pool: string, taskId: string, state: WarmTask['state']): WarmTask {
  return {
    pool,
    taskId,
    taskArn: `arn:aws:ecs:us-east-1:123456789012:task/gridgate-browsers/${taskId}`,
    address: '10.0.1.20:4444',
    startedAt: 1_000,
    readyAt: 2_000,
    state,
    ...(state === 'claimed' ? { session: `session-of-${taskId}`, claimedAt: 3_000 } : {}),
  };
}

/** A grid with a warm ecs pool "fargate" and a cold one "spot", whose ECS launcher counts from `warm`. */
function startGrid(warm: MemoryWarmTasks): void {
  grid = startFakeGrid({
    config: {
      browsers: { chrome: { versions: { '156': { pools: ['fargate', 'spot'] } } } },
      pools: {
        fargate: { ...DEPLOYED, maxSessions: 5, warm: { min: 1, max: 3 } },
        spot: { ...DEPLOYED, maxSessions: 5 },
      },
    },
  });
  // Counting reads the store only: the ECS client is never sent a command (loopback, fake credentials).
  ecs = unreachableEcsClient();
  const launcher = new EcsLauncher({ ecs, warm, logger: grid.logger });
  grid.deps.runtimes.ecs = { launcher, warm: launcher };
}

async function statusPools(): Promise<Record<string, unknown>[]> {
  const response = await grid.app.request('/status');
  expect(response.status).toBe(200);
  return ((await response.json()) as { value: { pools: Record<string, unknown>[] } }).value.pools;
}

async function pagePools(): Promise<Overview['pools']> {
  const response = await grid.app.request('/ui/api/overview');
  expect(response.status).toBe(200);
  return ((await response.json()) as Overview).pools;
}

describe('an ecs pool’s warm tasks in /status and on the status page', () => {
  it('counts the idle tasks of a pool with `warm`, not claimed ones nor other pools’', async () => {
    const warm = new MemoryWarmTasks();
    for (const t of [
      task('fargate', 'a'.repeat(32), 'idle'),
      task('fargate', 'b'.repeat(32), 'idle'),
      task('fargate', 'c'.repeat(32), 'claimed'),
      task('spot', 'd'.repeat(32), 'idle'),
    ]) {
      await warm.register(t);
    }
    warm.calls.length = 0;
    startGrid(warm);

    expect(await statusPools()).toEqual([
      { name: 'fargate', kind: 'ecs', maxSessions: 5, inUse: 0, waiting: 0, warm: 2 },
      { name: 'spot', kind: 'ecs', maxSessions: 5, inUse: 0, waiting: 0, warm: 0 },
    ]);
    expect((await pagePools()).map(({ name, warm }) => ({ name, warm }))).toEqual([
      { name: 'fargate', warm: 2 },
      { name: 'spot', warm: 0 },
    ]);
    // A pool without `warm` costs no read: only the warm pool's partition was listed, once per request.
    expect(warm.calls).toEqual(['list fargate', 'list fargate']);
  });

  it('follows claims: a claimed task is no longer counted', async () => {
    const warm = new MemoryWarmTasks();
    await warm.register(task('fargate', 'a'.repeat(32), 'idle'));
    startGrid(warm);
    expect((await statusPools())[0]?.warm).toBe(1);
    await warm.claim('fargate', { key: 'new-session', at: 4_000 });
    expect((await statusPools())[0]?.warm).toBe(0);
  });

  it('still answers when the store cannot be read: the count is left out (unknown) and logged', async () => {
    const warm = new MemoryWarmTasks();
    warm.failure = new Error('table gridgate-sessions: ProvisionedThroughputExceededException');
    startGrid(warm);

    const response = await grid.app.request('/status');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { value: { ready: boolean; pools: Record<string, unknown>[] } };
    expect(body.value.ready).toBe(true);
    expect(body.value.pools[0]).toEqual({
      name: 'fargate',
      kind: 'ecs',
      maxSessions: 5,
      inUse: 0,
      waiting: 0,
    });
    expect(body.value.pools[1]?.warm).toBe(0);
    expect(grid.logger.fieldsOf('UPSTREAM_ERROR')).toEqual([
      {
        pool: 'fargate',
        operation: 'warm count',
        error: 'table gridgate-sessions: ProvisionedThroughputExceededException',
      },
    ]);
    // The page shows it blank (no `warm`), not 0: nobody should read "none ready" into a failed read.
    const [fargate, spot] = await pagePools();
    expect(fargate).not.toHaveProperty('warm');
    expect(spot?.warm).toBe(0);
  });
});
