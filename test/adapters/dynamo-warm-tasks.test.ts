/** The warm pool's store and demand reader on dynalite, a real DynamoDB-compatible server on loopback. */
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { DynamoSessionStarts } from '../../functions/adapters/aws/dynamo-warm-demand';
import { DynamoWarmTasks } from '../../functions/adapters/aws/dynamo-warm-tasks';
import { WebDriverError } from '../../functions/core/errors';
import type { WarmTask } from '../../functions/core/warm-tasks';
import { sampleRecord } from '../contract/session-store.contract';
import { FixedClock } from '../support/fakes';
import { useFreshSessionTable } from '../support/fresh-session-table';

const T0 = sampleRecord('any').createdAt;

const table = useFreshSessionTable();
let clock: FixedClock;

beforeEach(() => {
  clock = new FixedClock(T0);
});

function idleTask(taskId: string, pool = 'fargate'): WarmTask {
  return {
    pool,
    taskId,
    taskArn: `arn:aws:ecs:us-east-1:123456789012:task/browsers/${taskId}`,
    address: '10.0.1.20:4444',
    startedAt: T0 - 60_000,
    readyAt: T0 - 5000,
    state: 'idle',
  };
}

const store = (random = Math.random) =>
  new DynamoWarmTasks({ client: table.client, table: table.table, clock, random });

describe('DynamoWarmTasks', () => {
  it('registers an idle task once and lists it under its pool only', async () => {
    const warm = store();
    expect(await warm.register(idleTask('a'.repeat(32)))).toBe(true);
    expect(await warm.register({ ...idleTask('a'.repeat(32)), address: '10.0.9.9:4444' })).toBe(false);
    expect(await warm.list('fargate')).toEqual([idleTask('a'.repeat(32))]);
    expect(await warm.list('other')).toEqual([]);
  });

  it('gives an idle task to one claim, marked with the claiming session', async () => {
    const warm = store();
    await warm.register(idleTask('a'.repeat(32)));
    const claimed = await warm.claim('fargate', { key: 'session-1', at: T0 });
    expect(claimed).toEqual({
      ...idleTask('a'.repeat(32)),
      state: 'claimed',
      session: 'session-1',
      claimedAt: T0,
    });
    expect(await warm.claim('fargate', { key: 'session-2', at: T0 })).toBeUndefined();
    expect(await warm.list('fargate')).toEqual([claimed]);
  });

  it('gives a resent claim of the same session the same task again', async () => {
    const warm = store();
    await warm.register(idleTask('a'.repeat(32)));
    await warm.register(idleTask('b'.repeat(32)));
    const first = await warm.claim('fargate', { key: 'session-1', at: T0 });
    const again = await warm.claim('fargate', { key: 'session-1', at: T0 + 10 });
    expect(again?.taskId).toBe(first?.taskId);
    expect((await warm.list('fargate')).filter((task) => task.state === 'idle')).toHaveLength(1);
  });

  it('never gives one task to two routers claiming at once', async () => {
    // Two routers, each with its own client, both going for the same (only) task.
    const otherClient = table.newClient();
    const first = store(() => 0);
    const second = new DynamoWarmTasks({ client: otherClient, table: table.table, clock });
    await first.register(idleTask('a'.repeat(32)));

    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? first : second).claim('fargate', { key: `session-${i}`, at: T0 }),
      ),
    );

    const winners = claims.filter((claim) => claim !== undefined);
    expect(winners).toHaveLength(1);
    const [stored] = await first.list('fargate');
    expect(stored?.session).toBe(winners[0]?.session);
    otherClient.destroy();
  });

  it('gives each of several concurrent claims a different task while idle ones last', async () => {
    const warm = store();
    for (const id of ['a', 'b', 'c']) await warm.register(idleTask(id.repeat(32)));

    const claims = await Promise.all(
      Array.from({ length: 5 }, (_, i) => store().claim('fargate', { key: `s${i}`, at: T0 })),
    );

    const taken = claims.filter((claim) => claim !== undefined).map((claim) => claim?.taskId);
    // Each claim tries up to three tasks, so with three idle ones every task goes, each once.
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.length).toBeGreaterThanOrEqual(1);
    expect(taken.length).toBeLessThanOrEqual(3);
    const left = (await warm.list('fargate')).filter((task) => task.state === 'idle');
    expect(left.length + taken.length).toBe(3);
  });

  it('retires a task only while it is idle', async () => {
    const warm = store();
    await warm.register(idleTask('a'.repeat(32)));
    await warm.register(idleTask('b'.repeat(32)));
    await warm.claim('fargate', { key: 'session-1', at: T0 });
    const claimed = (await warm.list('fargate')).find((task) => task.state === 'claimed')?.taskId as string;
    const idle = claimed === 'a'.repeat(32) ? 'b'.repeat(32) : 'a'.repeat(32);

    expect(await warm.retire('fargate', claimed)).toBe(false);
    expect(await warm.retire('fargate', idle)).toBe(true);
    expect(await warm.retire('fargate', idle)).toBe(false);
    expect((await warm.list('fargate')).map((task) => task.taskId)).toEqual([claimed]);
  });

  it('forgets a task, and forgetting it again is fine', async () => {
    const warm = store();
    await warm.register(idleTask('a'.repeat(32)));
    await warm.remove('fargate', 'a'.repeat(32));
    await warm.remove('fargate', 'a'.repeat(32));
    expect(await warm.list('fargate')).toEqual([]);
  });

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
