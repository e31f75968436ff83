/**
 * ecsStoredWarmCount: /status's count of an ecs pool's warm tasks, read from the warm-task store without making the
 * ecs runtime (so /status never loads the ECS SDK).
 */
import { describe, expect, it } from 'vitest';
import type { WarmTask, WarmTaskStore } from '../../../functions/core/warm-task-store';
import { ecsStoredWarmCount } from '../../../functions/pools/ecs/ecs-stored-warm-count';

function task(taskId: string, state: WarmTask['state']): WarmTask {
  return {
    pool: 'fargate',
    taskId,
    taskArn: `arn:${taskId}`,
    address: '10.0.1.20:4444',
    startedAt: 1,
    readyAt: 2,
    state,
  };
}

/** Only what a count reads; anything else the count has no business calling. */
function listingStore(tasks: WarmTask[]): WarmTaskStore {
  const never = () => Promise.reject(new Error('a count only lists'));
  return {
    list: async (pool) => tasks.filter((t) => t.pool === pool),
    claim: never,
    register: never,
    remove: never,
    retire: never,
  };
}

describe('ecsStoredWarmCount', () => {
  it('counts the pool’s idle tasks in the table’s store, as EcsLauncher.warmCount does', async () => {
    const tables: string[] = [];
    const store = listingStore([task('a', 'idle'), task('b', 'claimed'), task('c', 'idle')]);
    const count = ecsStoredWarmCount(async (table) => {
      tables.push(table);
      return store;
    }, 'sessions');
    expect(await count.warmCount('fargate')).toBe(2);
    expect(await count.warmCount('spot')).toBe(0);
    expect(tables).toEqual(['sessions', 'sessions']);
  });

  it('is 0 without a table to claim from, reading nothing, as the launcher claims none then', async () => {
    const count = ecsStoredWarmCount(() => Promise.reject(new Error('no table to read')), undefined);
    expect(await count.warmCount('fargate')).toBe(0);
  });
});
