/**
 * The Node server's GET /status with an ecs pool keeping warm tasks in a shared DynamoDB table (dynalite on
 * loopback): it counts them through the warm-task store and never makes the ECS launcher for that.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoWarmTasks } from '../../functions/adapters/aws/dynamo-warm-tasks';
import type { PoolConfig } from '../../functions/core/config';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { CollectingLogger } from '../support/fakes';
import { useFreshSessionTable } from '../support/fresh-session-table';
import { configWithOnePool } from '../support/one-pool-config';
import { warmStatusAdapters } from '../support/warm-status-adapters';

const table = useFreshSessionTable();
let grid: RunningGrid | undefined;

afterEach(async () => {
  await grid?.close();
  grid = undefined;
});

const adapters = () =>
  warmStatusAdapters(table.client, {
    metrics: async () => {
      throw new Error('the Node server measures nothing through EMF');
    },
  });

describe('Node server: /status and warm ecs tasks', () => {
  it('counts the idle warm tasks in the shared table without making the ECS launcher', async () => {
    const warm = new DynamoWarmTasks({ client: table.client, table: table.table });
    for (const taskId of ['a'.repeat(32), 'b'.repeat(32)]) {
      await warm.register({
        pool: 'fargate',
        taskId,
        taskArn: `arn:aws:ecs:us-east-1:123456789012:task/gridgate-browsers/${taskId}`,
        address: '10.0.1.20:4444',
        startedAt: Date.now() - 60_000,
        readyAt: Date.now() - 5000,
        state: 'idle',
      });
    }
    await warm.claim('fargate', { key: 'a-session', at: Date.now() });
    const config = configWithOnePool(
      'fargate',
      {
        kind: 'ecs',
        cluster: 'gridgate-browsers',
        taskDefinition: 'gridgate-chrome:1',
        subnets: ['subnet-a'],
        securityGroups: ['sg-browsers'],
        networks: ['10.0.0.0/16'],
        warm: { min: 1, max: 2 },
      },
      { port: 0, host: '127.0.0.1', store: { kind: 'dynamodb', table: table.table } },
    );
    const { aws, made, makers } = adapters();
    grid = await startGrid(config, randomBytes(32), new CollectingLogger(), { aws, makers, reloadPollMs: 0 });

    const status = await (await fetch(`${grid.url}/status`)).json();
    expect(status.value.pools).toEqual([expect.objectContaining({ name: 'fargate', kind: 'ecs', warm: 1 })]);
    expect(made.launchers).toEqual([]);

    // A session's need still makes it, with the table to claim warm tasks from.
    await grid.deps.runtimes.ecs?.launcher.stop('0123456789abcdef0123456789abcdef', {
      key: 'k',
      pool: grid.deps.config.pools.fargate as PoolConfig,
      reason: 'deleted',
      upstreamId: '',
    });
    expect(made.launchers).toEqual([{ warmTable: table.table }]);
  });
});
