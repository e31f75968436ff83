/**
 * docs/heads.md, done as it says: the table created from docs/session-table.json (which must be the
 * deployed table's keys), two `npm start` heads with the page's config file (only the port differs) and
 * the page's environment, the endpoint pointed at dynalite on loopback. Both heads answer /status from
 * the one table, so a slot either takes shows in both. No browser is started.
 */
import { readFileSync } from 'node:fs';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { SessionTable } from '../../infra/session-table';
import { type DynaliteServer, startDynalite } from '../support/dynalite';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';

const page = readFileSync(new URL('../../docs/heads.md', import.meta.url), 'utf8');
const tableInput = JSON.parse(
  readFileSync(new URL('../../docs/session-table.json', import.meta.url), 'utf8'),
);

/** The page's fenced blocks of one language, in order. */
function blocks(language: string): string[] {
  return [...page.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (m) => m[1] as string,
  );
}

/** `export NAME=value` lines of the page's shell blocks. */
function exportedVariables(): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const block of blocks('sh')) {
    for (const [, name, value] of block.matchAll(/^export (\w+)=(\S+)$/gm))
      variables[name as string] = value as string;
  }
  return variables;
}

let dynamo: DynaliteServer;
const heads: NodeServerProcess[] = [];

beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await Promise.all(heads.map((head) => head.stop()));
  await dynamo.close();
});

describe('docs/heads.md', { timeout: 90_000 }, () => {
  it('describes the deployed table’s keys', () => {
    const stack = new Stack(new App(), 'Table');
    new SessionTable(stack, 'Sessions');
    Template.fromStack(stack).hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: tableInput.KeySchema,
      AttributeDefinitions: tableInput.AttributeDefinitions,
      BillingMode: tableInput.BillingMode,
    });
    expect(blocks('sh')[0]).toContain('--cli-input-json file://docs/session-table.json');
  });

  it('runs two heads on one table, as it says', async () => {
    const client = dynamo.newClient();
    await client.send(new CreateTableCommand(tableInput));
    const [config] = blocks('json').map(
      (text) => JSON.parse(text) as { port: number; store: { table: string } },
    );
    expect(config?.store).toEqual({ kind: 'dynamodb', table: tableInput.TableName });
    const variables = exportedVariables();
    expect(Object.keys(variables).sort()).toEqual([
      'AWS_ACCESS_KEY_ID',
      'AWS_ENDPOINT_URL_DYNAMODB',
      'AWS_REGION',
      'AWS_SECRET_ACCESS_KEY',
      'GRIDGATE_SECRET',
    ]);
    const env = { ...variables, AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint };
    // Ports of our own choosing (others use the machine): everything else is the page's.
    for (let i = 0; i < 2; i++) heads.push(startNodeServer({ ...config, port: 0, host: '127.0.0.1' }, env));
    const urls = await Promise.all(heads.map((head) => head.url));

    // A slot taken in the table (as a session on either head would take it) is seen by both.
    const store = new DynamoSessionStore({ client, table: tableInput.TableName });
    expect(await store.acquire('some-session', { pool: 'local', poolLimit: 1, user: 'guest' })).toEqual({
      ok: true,
    });
    for (const url of urls) {
      const status = (await (await fetch(`${url}/status`)).json()) as { value: { pools: unknown[] } };
      expect(status.value.pools).toEqual([expect.objectContaining({ name: 'local', inUse: 1 })]);
    }
    await store.release('some-session');
    client.destroy();
  });
});
