/**
 * AWS adapters for the /status warm-count tests of both heads (router Lambda and Node server): the
 * warm-task store on the test's dynalite table, and an ECS launcher (a fake) that records being made, so a
 * test can show a count never made it.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoWarmTasks } from '../../functions/adapters/aws/dynamo-warm-tasks';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { noMetrics } from '../../functions/core/ports';
import type { AwsAdapters } from '../../functions/entry/aws-adapters';
import { FakeLauncher } from './fakes';

/** `overrides`: adapters a head must not call here (one that throws says so). */
export function warmStatusAdapters(client: DynamoDBClient, overrides: Partial<AwsAdapters> = {}) {
  const made = { launchers: [] as { warmTable?: string }[], stores: [] as string[] };
  const aws: AwsAdapters = {
    // The quota store is not what these tests are about; the warm tasks' table is the dynamodb store's name.
    sessionStore: async () => new MemorySessionStore(),
    ecsLauncher: async ({ warmTable }) => {
      made.launchers.push({ warmTable });
      return new FakeLauncher();
    },
    eksLauncher: async () => {
      throw new Error('no eks pools in these tests');
    },
    eksPodApis: async () => {
      throw new Error('no eks pools in these tests');
    },
    warmTasks: async (table) => {
      made.stores.push(table);
      return new DynamoWarmTasks({ client, table });
    },
    metrics: async () => noMetrics,
    secret: async () => {
      throw new Error('no secret ARN in these tests');
    },
    ...overrides,
  };
  return { aws, made };
}
