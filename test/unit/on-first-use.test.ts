/**
 * onFirstUse: a launcher made on its first start or stop; and ecsWarmCount, which answers /status's warm
 * count without making the launcher (so /status never loads the ECS SDK).
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import type { Launcher, StopContext } from '../../functions/core/ports';
import type { WarmTask, WarmTaskStore } from '../../functions/core/warm-task-store';
import { type AwsAdapters, ecsWarmCount, onFirstUse } from '../../functions/entry/aws-adapters';

const STOPPING: StopContext = {
  key: 'k',
  pool: Object.values(parseConfig({}, { localBrowserVersion: '1' }).pools)[0] as StopContext['pool'],
  reason: 'deleted',
  upstreamId: '',
};

function countingMaker() {
  const made = { times: 0 };
  const make = async (): Promise<Launcher> => {
    made.times++;
    return {
      start: async () => Promise.reject(new Error('not in this test')),
      stop: async () => {},
    };
  };
  return { make, made };
}

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

function adaptersWith(warmTasks: AwsAdapters['warmTasks']): AwsAdapters {
  const never = () => Promise.reject(new Error('not in this test'));
  return {
    sessionStore: never,
    ecsLauncher: never,
    eksLauncher: never,
    eksPodApis: never,
    metrics: never,
    secret: never,
    warmTasks,
  };
}

describe('onFirstUse', () => {
  it('makes the launcher with its first stop, not before, and keeps it', async () => {
    const { make, made } = countingMaker();
    const launcher = onFirstUse(make);
    expect(made.times).toBe(0);
    await launcher.stop('handle', STOPPING);
    await launcher.stop('handle', STOPPING);
    expect(made.times).toBe(1);
  });

  it('tries again to make a launcher whose making failed', async () => {
    let tries = 0;
    const launcher = onFirstUse(async () => {
      tries++;
      if (tries === 1) throw new Error('SDK failed to load');
      return countingMaker().make();
    });
    await expect(launcher.stop('handle', STOPPING)).rejects.toThrow('SDK failed to load');
    await launcher.stop('handle', STOPPING);
    expect(tries).toBe(2);
  });
});

describe('ecsWarmCount', () => {
  it('counts the pool’s idle tasks in the table’s store, as EcsLauncher.warmCount does', async () => {
    const tables: string[] = [];
    const store = listingStore([task('a', 'idle'), task('b', 'claimed'), task('c', 'idle')]);
    const count = ecsWarmCount(
      adaptersWith(async (table) => {
        tables.push(table);
        return store;
      }),
      'sessions',
    );
    expect(await count('fargate')).toBe(2);
    expect(await count('spot')).toBe(0);
    expect(tables).toEqual(['sessions', 'sessions']);
  });

  it('is 0 without a table to claim from, reading nothing, as the launcher claims none then', async () => {
    const count = ecsWarmCount(
      adaptersWith(() => Promise.reject(new Error('no table to read'))),
      undefined,
    );
    expect(await count('fargate')).toBe(0);
  });
});
