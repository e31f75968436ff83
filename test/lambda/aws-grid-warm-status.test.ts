/**
 * /status in Lambda mode shows an ecs pool's idle warm tasks: awsGrid's ECS launcher, made on first use,
 * counts them in the table the deployment names (dynalite on loopback standing in for DynamoDB).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ECSClient } from '@aws-sdk/client-ecs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoWarmTasks } from '../../functions/adapters/aws/dynamo-warm-tasks';
import { EcsLauncher } from '../../functions/adapters/aws/ecs-launcher';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { noMetrics } from '../../functions/core/ports';
import type { AwsAdapters } from '../../functions/entry/aws-adapters';
import { awsGrid } from '../../functions/entry/aws-grid';
import { gridStatus } from '../../functions/http/grid-info';
import { useFreshSessionTable } from '../support/fresh-session-table';

const SECRET = 'router-lambda-test-secret-32-bytes!!';
const FARGATE = {
  cluster: 'gridgate',
  taskDefinition: 'gridgate-fargate:1',
  subnets: ['subnet-1'],
  securityGroups: ['sg-1'],
  networks: ['10.0.0.0/16'],
};

const table = useFreshSessionTable();
let ecs: ECSClient;

beforeEach(() => {
  // Never sent a command: counting reads the table only.
  ecs = new ECSClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
});
afterEach(() => {
  ecs.destroy();
});

function env(warm: Record<string, unknown> | undefined): NodeJS.ProcessEnv {
  const config = {
    browsers: { chrome: { versions: { stable: { pools: ['fargate'] } } } },
    pools: { fargate: { kind: 'ecs', ...(warm ? { warm } : {}) } },
    store: { kind: 'dynamodb', table: 'gridgate-sessions' },
  };
  const path = join(mkdtempSync(join(tmpdir(), 'gridgate-aws-grid-warm-')), 'gridgate.json');
  writeFileSync(path, JSON.stringify(config));
  return {
    GRIDGATE_CONFIG: path,
    GRIDGATE_DEPLOYMENT: JSON.stringify({ pools: { fargate: FARGATE }, table: table.table }),
    GRIDGATE_SECRET: SECRET,
  };
}

/** The AWS adapters with the ECS launcher's warm-task store on dynalite, as awsAdapters makes it from warmTable. */
function adapters() {
  const made = { launchers: 0, warmTables: [] as (string | undefined)[] };
  const aws: AwsAdapters = {
    sessionStore: async () => new MemorySessionStore(),
    ecsLauncher: async ({ warmTable }) => {
      made.launchers++;
      made.warmTables.push(warmTable);
      const warm =
        warmTable === undefined ? undefined : new DynamoWarmTasks({ client: table.client, table: warmTable });
      return new EcsLauncher({ ecs, warm });
    },
    eksLauncher: async () => {
      throw new Error('no eks pools in this test');
    },
    metrics: async () => noMetrics,
    secret: async () => {
      throw new Error('no secret ARN in this test');
    },
  };
  return { aws, made };
}

const readyTask = (taskId: string) => ({
  pool: 'fargate',
  taskId,
  taskArn: `arn:aws:ecs:us-east-1:123456789012:task/gridgate/${taskId}`,
  address: '10.0.1.20:4444',
  startedAt: Date.now() - 60_000,
  readyAt: Date.now() - 5000,
  state: 'idle' as const,
});

describe('awsGrid: /status and warm ecs tasks', () => {
  it('counts the idle warm tasks in the deployment’s table, making the launcher once', async () => {
    const warm = new DynamoWarmTasks({ client: table.client, table: table.table });
    await warm.register(readyTask('a'.repeat(32)));
    await warm.register(readyTask('b'.repeat(32)));
    await warm.claim('fargate', { key: 'a-session', at: Date.now() });
    const { aws, made } = adapters();
    const { deps } = await awsGrid(env({ min: 1, max: 2 }), aws);
    expect(made.launchers).toBe(0);

    expect((await gridStatus(deps)).value.pools).toEqual([
      { name: 'fargate', kind: 'ecs', maxSessions: 4, inUse: 0, waiting: 0, warm: 1 },
    ]);
    expect((await gridStatus(deps)).value.pools[0]?.warm).toBe(1);
    // Sessions use the launcher the count made.
    await deps.launchers.ecs?.stop('0123456789abcdef0123456789abcdef');
    expect(made).toEqual({ launchers: 1, warmTables: [table.table] });
  });

  it('shows 0 for a pool without `warm`, without making the launcher or reading the table', async () => {
    const { aws, made } = adapters();
    const { deps } = await awsGrid(env(undefined), aws);
    expect((await gridStatus(deps)).value.pools[0]?.warm).toBe(0);
    expect(made.launchers).toBe(0);
  });
});
