/**
 * DynamoSessionStore on dynalite (a DynamoDB-compatible server): the session store contract, and what
 * only DynamoDB has (TTL attributes, several heads on one table, throttled activity writes).
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { WebDriverError } from '../../functions/core/errors';
import type { SlotClaim } from '../../functions/core/ports';
import { RECORDED_MAX, RECORDED_PAGE } from '../contract/recorded-sessions.contract';
import { sessionStoreContract } from '../contract/session-store.contract';
import { sampleRecord, T0 } from '../contract/store-samples';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { FixedClock } from '../support/fakes';

const HOUR = 60 * 60_000;

let dynamo: DynaliteServer;
beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo?.close();
});

sessionStoreContract('DynamoSessionStore on dynalite', async () => {
  const table = await dynamo.createSessionTable();
  const store = new DynamoSessionStore({
    client: table.client,
    table: table.table,
    // The contract's records are dated T0: the store lives then too.
    clock: new FixedClock(T0),
    maxRecorded: RECORDED_MAX,
    recordedPageSize: RECORDED_PAGE,
  });
  return {
    store,
    dispose: async () => {
      await store.settled();
      await table.close();
    },
  };
});

describe('DynamoSessionStore on dynalite', () => {
  let table: SessionTableUnderTest;
  let doc: DynamoDBDocumentClient;
  afterEach(async () => {
    await table?.close();
  });

  async function newTable() {
    table = await dynamo.createSessionTable();
    doc = DynamoDBDocumentClient.from(table.client);
    return table;
  }

  const rawItem = async (pk: string, sk: string) =>
    (await doc.send(new GetCommand({ TableName: table.table, Key: { pk, sk } }))).Item;

  it('gives every item the TTL attribute in epoch seconds: running past max age plus an hour, ended an hour after', async () => {
    await newTable();
    const store = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    const record = sampleRecord('s1', { maxAgeMs: 2 * HOUR });
    await store.add(record);
    expect(await rawItem('running', 's1')).toMatchObject({ expiresAt: (T0 + 3 * HOUR) / 1000 });
    await store.end('s1', 'deleted', T0 + 1500);
    expect(await rawItem('running', 's1')).toBeUndefined();
    expect(await rawItem('ended#s1', 'record')).toMatchObject({
      expiresAt: Math.ceil((T0 + 1500 + HOUR) / 1000),
    });
    await store.markReclaimed('task-1', { at: T0, reason: 'SpotInterruption' });
    expect(await rawItem('reclaim#task-1', 'reclaim')).toMatchObject({ expiresAt: (T0 + HOUR) / 1000 });
  });

  it('keeps a session that recorded something for its recordings’ retention: its ended item, and its item in the recorded partition sorted by its end', async () => {
    await newTable();
    const store = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    const recording = { video: true, log: false, retentionMs: 24 * HOUR };
    await store.add(sampleRecord('s1', { recording }));
    await store.end('s1', 'idle timeout', T0 + 1500);
    const expiresAt = Math.ceil((T0 + 1500 + 24 * HOUR) / 1000);
    expect(await rawItem('ended#s1', 'record')).toMatchObject({ expiresAt, recording });
    expect(await rawItem('recorded', `00${T0 + 1500}#s1`)).toMatchObject({
      key: 's1',
      endReason: 'idle timeout',
      recording,
      expiresAt,
    });
    // A session that recorded nothing: its ended item for the hour, nothing in the recorded partition.
    await store.add(sampleRecord('s2'));
    await store.end('s2', 'deleted', T0 + 2000);
    expect(await rawItem('ended#s2', 'record')).toMatchObject({
      expiresAt: Math.ceil((T0 + 2000 + HOUR) / 1000),
    });
    expect(await rawItem('recorded', `00${T0 + 2000}#s2`)).toBeUndefined();
  });

  it('treats items past their expiresAt as gone, since TTL deletes them only within two days', async () => {
    await newTable();
    const clock = new FixedClock(T0);
    const store = new DynamoSessionStore({ client: table.client, table: table.table, clock });
    await store.add(sampleRecord('ended', { maxAgeMs: HOUR }));
    await store.add(sampleRecord('stale', { maxAgeMs: HOUR }));
    await store.add(sampleRecord('fresh', { createdAt: T0 + HOUR, maxAgeMs: HOUR }));
    await store.end('ended', 'deleted', T0);
    await store.markReclaimed('task-1', { at: T0, reason: 'SpotInterruption' });
    clock.advance(HOUR - 1000);
    expect(await store.get('ended')).toMatchObject({ endReason: 'deleted' });
    expect(await store.reclaimed('task-1')).toBeDefined();
    clock.advance(HOUR + 1000); // two hours on: the ended record's and the mark's hour is over, and stale's max age too
    expect(await store.get('ended')).toBeUndefined();
    expect(await store.reclaimed('task-1')).toBeUndefined();
    expect((await store.running()).map((r) => r.key)).toEqual(['fresh']);
    expect(await store.end('stale', 'max age', clock.now())).toBeUndefined();
  });

  it('keeps the limits when one head releases while another acquires on the same table, and counts stay true', async () => {
    await newTable();
    const claim: SlotClaim = { pool: 'fargate', poolLimit: 3, user: 'alice', userLimit: 5 };
    const headA = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    const otherClient = dynamo.newClient();
    const headB = new DynamoSessionStore({
      client: otherClient,
      table: table.table,
      clock: new FixedClock(T0),
    });
    try {
      for (const key of ['a1', 'a2', 'a3']) expect(await headA.acquire(key, claim)).toEqual({ ok: true });
      const bKeys = Array.from({ length: 12 }, (_, i) => `b${i}`);
      const [answers] = await Promise.all([
        Promise.all(bKeys.map((key) => headB.acquire(key, claim))),
        Promise.all(['a1', 'a2', 'a3', 'a1'].map((key) => headA.release(key))),
      ]);
      const granted = bKeys.filter((_, i) => answers[i]?.ok);
      expect(granted.length).toBeLessThanOrEqual(3);
      // Every refusal names the pool and never a count above its limit.
      for (const answer of answers) if (!answer.ok) expect(answer).toMatchObject({ full: 'pool' });
      expect(await headA.inUse()).toEqual(granted.length ? { fargate: granted.length } : {});
      expect(await headB.inUseByUser()).toEqual(granted.length ? { alice: granted.length } : {});
      await Promise.all(bKeys.map((key) => headA.release(key)));
      expect(await headB.inUse()).toEqual({});
      expect(await headB.inUseByUser()).toEqual({});
    } finally {
      otherClient.destroy();
    }
  });

  it('refuses every slot of a pool whose limit is 0, though its counter was never written', async () => {
    await newTable();
    const store = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    expect(await store.acquire('a', { pool: 'closed', poolLimit: 0, user: 'alice' })).toEqual({
      ok: false,
      full: 'pool',
      held: 0,
    });
    expect(await store.acquire('b', { pool: 'open', poolLimit: 1, user: 'bob', userLimit: 0 })).toEqual({
      ok: false,
      full: 'user',
      held: 0,
    });
    expect(await store.inUse()).toEqual({});
    expect(await store.inUseByUser()).toEqual({});
  });

  it('shows one head the activity another head noted, and never moves it backwards', async () => {
    await newTable();
    const headA = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    const headB = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    await headA.add(sampleRecord('s1'));
    headA.touch('s1', T0 + 50_000);
    await headA.settled();
    headB.touch('s1', T0 + 20_000); // an older activity arriving late
    await headB.settled();
    expect(await headB.get('s1')).toMatchObject({ lastActivityAt: T0 + 50_000 });
  });

  it('writes a touch at most once per interval per session', async () => {
    await newTable();
    const clock = new FixedClock(T0);
    const store = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock,
      touchIntervalMs: 15_000,
    });
    await store.add(sampleRecord('s1'));
    store.touch('s1', T0 + 1000);
    await store.settled();
    clock.advance(10_000);
    store.touch('s1', T0 + 11_000);
    await store.settled();
    expect(await store.get('s1')).toMatchObject({ lastActivityAt: T0 + 1000 });
    clock.advance(5000);
    store.touch('s1', T0 + 16_000);
    await store.settled();
    expect(await store.get('s1')).toMatchObject({ lastActivityAt: T0 + 16_000 });
  });

  it('writes command counts only in the throttled activity write, and adds up what several heads counted', async () => {
    await newTable();
    const clockA = new FixedClock(T0);
    const headA = new DynamoSessionStore({ client: table.client, table: table.table, clock: clockA });
    const headB = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    await headA.add(sampleRecord('s1'));
    headA.touch('s1', T0 + 1000, 'POST', '/url');
    await headA.settled();
    headB.touch('s1', T0 + 2000, 'GET', '/title');
    await headB.settled();
    headA.touch('s1', T0 + 3000, 'POST', '/element');
    headA.touch('s1', T0 + 4000, 'GET', '/element/abc/text');
    await headA.settled();
    // Counted by A but within its touch interval: not written yet.
    expect(await headB.get('s1')).toMatchObject({ commands: 2, lastCommand: 'GET /title' });
    clockA.advance(15_000);
    headA.touch('s1', T0 + 20_000, 'POST', '/element/abc/click');
    await headA.settled();
    expect(await headB.get('s1')).toMatchObject({
      commands: 5,
      lastCommand: 'POST /element/{id}/click',
      lastActivityAt: T0 + 20_000,
    });
  });

  it('still adds the count when another head stored a later activity first', async () => {
    await newTable();
    const headA = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    const headB = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    await headA.add(sampleRecord('s1'));
    headB.touch('s1', T0 + 50_000, 'GET', '/url');
    await headB.settled();
    headA.touch('s1', T0 + 20_000, 'POST', '/url'); // an older command arriving late
    await headA.settled();
    expect(await headA.get('s1')).toMatchObject({
      commands: 2,
      lastCommand: 'GET /url',
      lastActivityAt: T0 + 50_000,
    });
  });

  it('never brings an ended session back when a touch arrives after the end', async () => {
    await newTable();
    const store = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    await store.add(sampleRecord('s1'));
    await store.end('s1', 'deleted', T0 + 1000);
    store.touch('s1', T0 + 2000);
    await store.settled();
    expect(await store.running()).toEqual([]);
    expect(await store.get('s1')).toMatchObject({ endReason: 'deleted', lastActivityAt: T0 });
  });

  it('keeps the mark with the latest time when reclaim events arrive out of order', async () => {
    await newTable();
    const store = new DynamoSessionStore({
      client: table.client,
      table: table.table,
      clock: new FixedClock(T0),
    });
    await store.markReclaimed('task-1', { at: T0 + 1000, reason: 'SpotInterruption' });
    await store.markReclaimed('task-1', { at: T0, reason: 'TerminationNotice' });
    expect(await store.reclaimed('task-1')).toEqual({ at: T0 + 1000, reason: 'SpotInterruption' });
  });

  it('answers 500 naming the table when the table does not exist', async () => {
    await newTable();
    const store = new DynamoSessionStore({
      client: table.client,
      table: 'no-such-table',
      clock: new FixedClock(T0),
    });
    const error = await store.inUse().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebDriverError);
    expect(error).toMatchObject({ code: 'unknown error', status: 500 });
    expect((error as Error).message).toContain('no-such-table');
  });
});
