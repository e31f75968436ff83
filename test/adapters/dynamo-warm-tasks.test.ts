/** The warm pool's store and demand reader on dynalite, a real DynamoDB-compatible server on loopback. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { DynamoSessionStarts } from '../../functions/adapters/aws/dynamo-warm-demand';
import { DynamoWarmTasks } from '../../functions/adapters/aws/dynamo-warm-tasks';
import { WebDriverError } from '../../functions/core/errors';
import { sampleRecord } from '../contract/store-samples';
import { idleTask, warmTaskStoreContract } from '../contract/warm-task-store.contract';
import { FixedClock } from '../support/fakes';
import { useFreshSessionTable } from '../support/fresh-session-table';

const T0 = sampleRecord('any').createdAt;

const table = useFreshSessionTable();
let clock: FixedClock;

beforeEach(() => {
  clock = new FixedClock(T0);
});

// The other routers' clients a contract test made, closed after it.
const otherClients: { destroy(): void }[] = [];
afterEach(() => {
  for (const client of otherClients.splice(0)) client.destroy();
});

warmTaskStoreContract('DynamoWarmTasks on dynalite', () => {
  const handle = (client = table.client) => new DynamoWarmTasks({ client, table: table.table, clock });
  // A second router: its own client on the same table.
  const another = () => {
    const client = table.newClient();
    otherClients.push(client);
    return handle(client);
  };
  return { store: handle(), another };
});

describe('DynamoWarmTasks', () => {
  it('treats an entry past its retention as gone before DynamoDB TTL deletes it', async () => {
    const warm = new DynamoWarmTasks({
      client: table.client,
      table: table.table,
      clock,
      retentionMs: 60_000,
    });
    await warm.register(idleTask('a'.repeat(32)));
    clock.advance(60_000);
    expect(await warm.list('fargate')).toEqual([]);
  });

  it('turns a missing table into a WebDriver error naming it', async () => {
    const warm = new DynamoWarmTasks({ client: table.client, table: 'no-such-table', clock });
    await expect(warm.claim('fargate', { key: 's', at: T0 })).rejects.toThrow(WebDriverError);
    await expect(warm.list('fargate')).rejects.toThrow(/no-such-table/);
  });
});

describe('DynamoSessionStarts', () => {
  it('reads the start of running and ended sessions since a time, and nothing else', async () => {
    const sessions = new DynamoSessionStore({ client: table.client, table: table.table, clock });
    await sessions.add(sampleRecord('old', { pool: 'fargate', createdAt: T0 - 20 * 60_000 }));
    await sessions.add(sampleRecord('running', { pool: 'fargate', createdAt: T0 - 60_000 }));
    await sessions.add(sampleRecord('ended', { pool: 'other', createdAt: T0 - 2 * 60_000 }));
    await sessions.end('ended', 'deleted', T0 - 30_000);
    await sessions.acquire('slot-only', { pool: 'fargate', poolLimit: 5, user: 'u' });
    await new DynamoWarmTasks({ client: table.client, table: table.table, clock }).register(
      idleTask('a'.repeat(32)),
    );

    const starts = await new DynamoSessionStarts(table.client, table.table).startedSince(T0 - 10 * 60_000);

    expect(starts.sort((a, b) => a.createdAt - b.createdAt)).toEqual([
      { pool: 'other', createdAt: T0 - 2 * 60_000 },
      { pool: 'fargate', createdAt: T0 - 60_000 },
    ]);
  });
});
