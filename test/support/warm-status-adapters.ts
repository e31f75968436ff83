/**
 * AWS adapters for the /status warm-count tests of both heads (router Lambda and Node server): the
 * warm-task store on the test's dynalite table, and an ecs runtime maker (a fake launcher) that records
 * being called, so a test can show a count never made the ecs runtime.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoWarmTasks } from '../../functions/adapters/aws/dynamo-warm-tasks';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { noMetrics } from '../../functions/core/ports';
import type { AwsAdapters } from '../../functions/entry/aws-adapters';
import type { RuntimeMakers } from '../../functions/pools';
import { warmTaskTable } from '../../functions/pools/ecs/warm-task-table';
import { FakeLauncher } from './fakes';

/** `overrides`: adapters a head must not call here (one that throws says so). */
export function warmStatusAdapters(client: DynamoDBClient, overrides: Partial<AwsAdapters> = {}) {
  const made = { launchers: [] as { warmTable?: string }[], stores: [] as string[] };
  const aws: AwsAdapters = {
    // The quota store is not what these tests are about; the warm tasks' table is the dynamodb store's name.
    sessionStore: async () => new MemorySessionStore(),
    warmTasks: async (table) => {
      made.stores.push(table);
      return new DynamoWarmTasks({ client, table });
    },
    identity: async () => {
      throw new Error('no eks pools in these tests');
    },
    metrics: async () => noMetrics,
    secret: async () => {
      throw new Error('no secret ARN in these tests');
    },
    ...overrides,
  };
  const makers: RuntimeMakers = {
    // The table the real ecs runtime would claim warm tasks from, as the wiring's config says.
    ecs: async ({ config }) => {
      made.launchers.push({ warmTable: warmTaskTable(config) });
      return { runtime: { launcher: new FakeLauncher() } };
    },
  };
  return { aws, made, makers };
}
