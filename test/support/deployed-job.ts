/**
 * The environment a deployed background Lambda (the cleanup, the Spot interruption handler) has, for tests
 * that import its entry: the bundled config file with its sessions in a table on the loopback dynalite, the
 * Region and credentials of its role (fake ones, which sign nothing real), and a fresh module registry so the
 * entry's module scope runs again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import type { DynaliteServer, SessionTableUnderTest } from './dynalite';

/** One ecs pool with its deployed settings (cluster, task definition, subnets, security groups). */
export const ECS_POOL = {
  kind: 'ecs',
  cluster: 'gridgate-browsers',
  taskDefinition: 'gridgate-chrome',
  subnets: ['subnet-1'],
  securityGroups: ['sg-1'],
  networks: ['10.0.0.0/16'],
};

/** Writes `name` in `directory`: a config of `pools` (all serving chrome 156) whose store is `store`. */
export function jobConfigFile(
  directory: string,
  store: object,
  name = 'gridgate.json',
  pools: Record<string, object> = { chrome: ECS_POOL },
): string {
  const path = join(directory, name);
  writeFileSync(
    path,
    JSON.stringify({
      browsers: { chrome: { versions: { '156': { pools: Object.keys(pools) } } } },
      pools,
      store,
    }),
  );
  return path;
}

/** Sets the environment; the caller closes the table and unstubs the environment after the test. */
export async function deployJob(
  dynamo: DynaliteServer,
  directory: string,
  pools?: Record<string, object>,
): Promise<{ table: SessionTableUnderTest; store: DynamoSessionStore }> {
  const table = await dynamo.createSessionTable();
  vi.stubEnv(
    'GRIDGATE_CONFIG',
    jobConfigFile(directory, { kind: 'dynamodb', table: table.table }, 'deployed.json', pools),
  );
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAFAKEFAKEFAKEFAKE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'fake-secret');
  vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
  vi.resetModules();
  return { table, store: new DynamoSessionStore({ client: table.client, table: table.table }) };
}
