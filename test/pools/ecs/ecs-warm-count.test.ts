/**
 * The ecs launcher's warm count on the DynamoDB warm-task store, against dynalite (a real
 * DynamoDB-compatible server on loopback): the `warm#<pool>` entries the cleanup registers and claims take.
 */
import type { ECSClient } from '@aws-sdk/client-ecs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoWarmTasks } from '../../../functions/adapters/aws/dynamo-warm-tasks';
import type { WarmTask } from '../../../functions/core/warm-task-store';
import { EcsLauncher } from '../../../functions/pools/ecs/ecs-launcher';
import { FixedClock } from '../../support/fakes';
import { useFreshSessionTable } from '../../support/fresh-session-table';
import { unreachableEcsClient } from '../../support/unreachable-ecs-client';

const T0 = Date.UTC(2026, 10, 30, 12);
const RETENTION_MS = 60 * 60_000;

const table = useFreshSessionTable();
let clock: FixedClock;
let ecs: ECSClient;

beforeEach(() => {
  clock = new FixedClock(T0);
  // Never sent a command: counting reads the table only.
  ecs = unreachableEcsClient();
});
afterEach(() => {
  ecs.destroy();
});

function idleTask(taskId: string, pool = 'fargate', readyAt = T0 - 5000): WarmTask {
  return {
    pool,
    taskId,
    taskArn: `arn:aws:ecs:us-east-1:123456789012:task/browsers/${taskId}`,
    address: '10.0.1.20:4444',
    startedAt: readyAt - 60_000,
    readyAt,
    state: 'idle',
  };
}

const store = () =>
  new DynamoWarmTasks({ client: table.client, table: table.table, clock, retentionMs: RETENTION_MS });

describe('EcsLauncher.warmCount on DynamoDB', () => {
  it('counts the pool’s idle tasks: claimed ones, other pools’ and expired entries are not', async () => {
    const warm = store();
    await warm.register(idleTask('a'.repeat(32)));
    await warm.register(idleTask('b'.repeat(32)));
    await warm.register(idleTask('c'.repeat(32)));
    await warm.register(idleTask('d'.repeat(32), 'spot'));
    // An entry past its retention the cleanup never removed (DynamoDB's TTL deletes it late).
    await warm.register(idleTask('e'.repeat(32), 'fargate', T0 - RETENTION_MS - 1000));
    const launcher = new EcsLauncher({ ecs, warm, clock });
    expect(await launcher.warmCount('fargate')).toBe(3);

    expect(await warm.claim('fargate', { key: 'session-1', at: T0 })).toBeDefined();
    expect(await launcher.warmCount('fargate')).toBe(2);
    expect(await launcher.warmCount('spot')).toBe(1);
    expect(await launcher.warmCount('none-here')).toBe(0);
  });

  it('rejects with the store’s error when the table cannot be read', async () => {
    const launcher = new EcsLauncher({
      ecs,
      warm: new DynamoWarmTasks({ client: table.client, table: 'no-such-table', clock }),
    });
    await expect(launcher.warmCount('fargate')).rejects.toThrow(/no-such-table/);
  });

  it('is 0 without a warm-task store, as no launch claims then either', async () => {
    expect(await new EcsLauncher({ ecs, clock }).warmCount('fargate')).toBe(0);
  });
});
