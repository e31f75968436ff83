/**
 * A DynamoDB-compatible server for tests: dynalite in memory on a loopback port, with tables shaped like
 * infra/session-table.ts. Usage: `const server = await startDynalite(); const t = await
 * server.createSessionTable();` (for a whole test file, see fresh-session-table.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { addTransactions } from './dynalite-transactions';

const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as (options: Record<string, number>) => Server;

export interface SessionTableUnderTest {
  /** A client of the server, as an entry would make one (fake credentials, loopback endpoint). */
  client: DynamoDBClient;
  table: string;
  /** Deletes the table and destroys the client. */
  close: () => Promise<void>;
}

export interface DynaliteServer {
  endpoint: string;
  /** A new table with a unique name: pk (S) hash, sk (S) range, on demand, like the deployed one. */
  createSessionTable: () => Promise<SessionTableUnderTest>;
  /** A client of this server (destroy it when done). */
  newClient: () => DynamoDBClient;
  close: () => Promise<void>;
}

export async function startDynalite(): Promise<DynaliteServer> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  addTransactions(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('dynalite did not listen on TCP');
  const endpoint = `http://127.0.0.1:${address.port}`;

  const newClient = () =>
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });

  return {
    endpoint,
    newClient,
    async createSessionTable() {
      const client = newClient();
      const table = `sessions-${randomUUID()}`;
      await client.send(
        new CreateTableCommand({
          TableName: table,
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'sk', AttributeType: 'S' },
          ],
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      // dynalite answers CreateTable with the table CREATING and makes it ACTIVE on a timer (even at 0 ms);
      // until then it refuses item calls with ResourceNotFoundException, as DynamoDB does. A quick client
      // on a quiet machine got there first once, so wait for ACTIVE as a deployment waits for its table.
      await untilActive(client, table);
      return {
        client,
        table,
        async close() {
          await client.send(new DeleteTableCommand({ TableName: table }));
          client.destroy();
        },
      };
    },
    async close() {
      // Clients keep sockets alive; close() would wait for them.
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

async function untilActive(client: DynamoDBClient, table: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`dynalite's table ${table} did not become ACTIVE`);
}
