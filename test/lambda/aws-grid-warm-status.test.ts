/**
 * /status in Lambda mode shows an ecs pool's idle warm tasks, read from the table the deployment names
 * (dynalite on loopback standing in for DynamoDB) through the warm-task store alone: answering it on a
 * cold start never makes the ECS launcher, whose SDK is a large part of that start.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ECSClient } from '@aws-sdk/client-ecs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoWarmTasks } from '../../functions/adapters/aws/dynamo-warm-tasks';
import type { PoolConfig } from '../../functions/core/config';
import type { GridDeps } from '../../functions/core/grid-deps';
import type { StopContext } from '../../functions/core/ports';
import type { WarmTask } from '../../functions/core/warm-task-store';
import { awsGrid } from '../../functions/entry/aws-grid';
import { gridStatus } from '../../functions/http/grid-info';
import { EcsLauncher } from '../../functions/pools/ecs/ecs-launcher';
import { CollectingLogger } from '../support/fakes';
import { useFreshSessionTable } from '../support/fresh-session-table';
import { unreachableEcsClient } from '../support/unreachable-ecs-client';
import { warmStatusAdapters } from '../support/warm-status-adapters';

const SECRET = 'router-lambda-test-secret-32-bytes!!';
const FARGATE = {
  cluster: 'gridgate',
  taskDefinition: 'gridgate-fargate:1',
  subnets: ['subnet-1'],
  securityGroups: ['sg-1'],
  networks: ['10.0.0.0/16'],
};
// DynamoWarmTasks' default: an entry older than this is gone, whatever the cleanup did.
const RETENTION_MS = 24 * 60 * 60_000;

const table = useFreshSessionTable();
let ecs: ECSClient;

beforeEach(() => {
  // Never sent a command: only the comparison with EcsLauncher.warmCount uses it, and that reads the table.
  ecs = unreachableEcsClient();
});
afterEach(() => {
  ecs.destroy();
});

function env(warm: Record<string, unknown> | undefined, tableName = table.table): NodeJS.ProcessEnv {
  const config = {
    browsers: { chrome: { versions: { stable: { pools: ['fargate'] } } } },
    pools: { fargate: { kind: 'ecs', ...(warm ? { warm } : {}) } },
    store: { kind: 'dynamodb', table: 'gridgate-sessions' },
  };
  const path = join(mkdtempSync(join(tmpdir(), 'gridgate-aws-grid-warm-')), 'gridgate.json');
  writeFileSync(path, JSON.stringify(config));
  return {
    GRIDGATE_CONFIG: path,
    GRIDGATE_DEPLOYMENT: JSON.stringify({ pools: { fargate: FARGATE }, table: tableName }),
    GRIDGATE_SECRET: SECRET,
  };
}

const adapters = () => warmStatusAdapters(table.client);
const stopping = (deps: GridDeps): StopContext => ({
  key: 'k',
  pool: deps.config.pools.fargate as PoolConfig,
  reason: 'deleted',
  upstreamId: '',
});

function idleTask(taskId: string, readyAt = Date.now() - 5000): WarmTask {
  return {
    pool: 'fargate',
    taskId,
    taskArn: `arn:aws:ecs:us-east-1:123456789012:task/gridgate/${taskId}`,
    address: '10.0.1.20:4444',
    startedAt: readyAt - 60_000,
    readyAt,
    state: 'idle',
  };
}

describe('awsGrid: /status and warm ecs tasks', () => {
  it('counts the idle warm tasks in the deployment’s table without making the ECS launcher', async () => {
    const warm = new DynamoWarmTasks({ client: table.client, table: table.table });
    await warm.register(idleTask('a'.repeat(32)));
    await warm.register(idleTask('b'.repeat(32)));
    await warm.register(idleTask('c'.repeat(32)));
    // Past its retention: the cleanup never removed it, and DynamoDB's TTL deletes it late.
    await warm.register(idleTask('d'.repeat(32), Date.now() - RETENTION_MS - 60_000));
    await warm.claim('fargate', { key: 'a-session', at: Date.now() });
    const { aws, made, makers } = adapters();
    const { deps } = await awsGrid(env({ min: 1, max: 3 }), aws, makers);

    expect((await gridStatus(deps)).value.pools).toEqual([
      { name: 'fargate', kind: 'ecs', maxSessions: 4, inUse: 0, waiting: 0, warm: 2 },
    ]);
    // The same answer the ECS launcher gives for the same table.
    expect(await new EcsLauncher({ ecs, warm }).warmCount('fargate')).toBe(2);
    expect(made.launchers).toEqual([]);
    expect(made.stores.length).toBeGreaterThan(0);
    expect(new Set(made.stores)).toEqual(new Set([table.table]));
  });

  it('still gives the launcher the table to claim warm tasks from when a session first needs it', async () => {
    const { aws, made, makers } = adapters();
    const { deps } = await awsGrid(env({ min: 1, max: 2 }), aws, makers);
    expect((await gridStatus(deps)).value.pools[0]?.warm).toBe(0);
    expect(made.launchers).toEqual([]);

    await deps.runtimes.ecs?.launcher.stop('0123456789abcdef0123456789abcdef', stopping(deps));
    expect(made.launchers).toEqual([{ warmTable: table.table }]);
    // Made once: later counts still read the table, and sessions keep the launcher made.
    await gridStatus(deps);
    await deps.runtimes.ecs?.launcher.stop('0123456789abcdef0123456789abcdef', stopping(deps));
    expect(made.launchers).toHaveLength(1);
  });

  it('leaves the count out, and the launcher unmade, when the table cannot be read', async () => {
    const { aws, made, makers } = adapters();
    const { deps } = await awsGrid(env({ min: 1, max: 2 }, 'no-such-table'), aws, makers);
    const logger = new CollectingLogger();
    deps.logger = logger;

    const [pool] = (await gridStatus(deps)).value.pools;
    expect(pool).toMatchObject({ name: 'fargate', inUse: 0 });
    expect(pool).not.toHaveProperty('warm');
    expect(logger.fieldsOf('UPSTREAM_ERROR')).toEqual([
      expect.objectContaining({
        pool: 'fargate',
        operation: 'warm count',
        error: expect.stringMatching(/no-such-table/),
      }),
    ]);
    expect(made.launchers).toEqual([]);
  });

  it('shows 0 for a pool without `warm`, without making the launcher or reading the table', async () => {
    const { aws, made, makers } = adapters();
    const { deps } = await awsGrid(env(undefined), aws, makers);
    expect((await gridStatus(deps)).value.pools[0]?.warm).toBe(0);
    expect(made).toEqual({ launchers: [], stores: [] });
  });
});
