import {
  DynamoDBClient,
  ProvisionedThroughputExceededException,
  ResourceNotFoundException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { MAX_ATTEMPTS } from '../../functions/adapters/aws/dynamo-transaction';
import { WebDriverError } from '../../functions/core/errors';
import type { SlotClaim } from '../../functions/core/ports';
import { sampleRecord, sessionStoreContract } from '../contract/session-store.contract';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';

// The contract's records are dated T0; the stores under test live then too.
const T0 = sampleRecord('any').createdAt;
const HOUR = 60 * 60_000;

let dynamo: DynaliteServer;
beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo?.close();
});

/** A clock the test moves. */
function testClock(start = T0) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

sessionStoreContract('DynamoSessionStore on dynalite', async () => {
  const table = await dynamo.createSessionTable();
  const store = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
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
    const store = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
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

  it('treats items past their expiresAt as gone, since TTL deletes them only within two days', async () => {
    await newTable();
    const clock = testClock();
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
    const headA = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
    const otherClient = dynamo.newClient();
    const headB = new DynamoSessionStore({ client: otherClient, table: table.table, clock: testClock() });
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
    const store = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
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
    const headA = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
    const headB = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
    await headA.add(sampleRecord('s1'));
    headA.touch('s1', T0 + 50_000);
    await headA.settled();
    headB.touch('s1', T0 + 20_000); // an older activity arriving late
    await headB.settled();
    expect(await headB.get('s1')).toMatchObject({ lastActivityAt: T0 + 50_000 });
  });

  it('writes a touch at most once per interval per session', async () => {
    await newTable();
    const clock = testClock();
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
    const clockA = testClock();
    const headA = new DynamoSessionStore({ client: table.client, table: table.table, clock: clockA });
    const headB = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
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
    const headA = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
    const headB = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
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
    const store = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
    await store.add(sampleRecord('s1'));
    await store.end('s1', 'deleted', T0 + 1000);
    store.touch('s1', T0 + 2000);
    await store.settled();
    expect(await store.running()).toEqual([]);
    expect(await store.get('s1')).toMatchObject({ endReason: 'deleted', lastActivityAt: T0 });
  });

  it('keeps the mark with the latest time when reclaim events arrive out of order', async () => {
    await newTable();
    const store = new DynamoSessionStore({ client: table.client, table: table.table, clock: testClock() });
    await store.markReclaimed('task-1', { at: T0 + 1000, reason: 'SpotInterruption' });
    await store.markReclaimed('task-1', { at: T0, reason: 'TerminationNotice' });
    expect(await store.reclaimed('task-1')).toEqual({ at: T0 + 1000, reason: 'SpotInterruption' });
  });

  it('answers 500 naming the table when the table does not exist', async () => {
    await newTable();
    const store = new DynamoSessionStore({
      client: table.client,
      table: 'no-such-table',
      clock: testClock(),
    });
    const error = await store.inUse().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebDriverError);
    expect(error).toMatchObject({ code: 'unknown error', status: 500 });
    expect((error as Error).message).toContain('no-such-table');
  });
});

describe('DynamoSessionStore against a mocked SDK', () => {
  const TABLE = 'gridgate-sessions';
  // Never reached: every send is answered by the mock.
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  // Mocked only while this block runs: it replaces send on every document client.
  const mockDocumentClient = () => mockClient(DynamoDBDocumentClient);
  let sdk: ReturnType<typeof mockDocumentClient>;
  beforeAll(() => {
    sdk = mockDocumentClient();
  });
  afterEach(() => {
    sdk.reset();
    vi.restoreAllMocks();
  });
  afterAll(() => {
    sdk.restore();
    client.destroy();
  });

  const store = (options: Partial<ConstructorParameters<typeof DynamoSessionStore>[0]> = {}) =>
    new DynamoSessionStore({ client, table: TABLE, clock: testClock(), ...options });

  const cancelled = (...codes: string[]) =>
    new TransactionCanceledException({
      message: `Transaction cancelled [${codes.join(', ')}]`,
      $metadata: {},
      CancellationReasons: codes.map((Code) => ({ Code })),
    });

  it('answers 503 with Retry-After, naming the table, when DynamoDB throttles', async () => {
    sdk.on(QueryCommand).rejects(
      new ProvisionedThroughputExceededException({
        message: 'slow down',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const error = await store()
      .inUse()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebDriverError);
    expect(error).toMatchObject({ code: 'unknown error', status: 503, headers: { 'Retry-After': '5' } });
    expect((error as Error).message).toBe(
      `the session store (DynamoDB table ${TABLE}) is unavailable: ProvisionedThroughputExceededException; try again`,
    );
  });

  it('answers 503 when DynamoDB cannot be reached', async () => {
    sdk.on(GetCommand).rejects(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    await expect(store().release('s1')).rejects.toMatchObject({
      status: 503,
      headers: { 'Retry-After': '5' },
    });
  });

  it('answers 500 naming the table when it is missing', async () => {
    sdk
      .on(GetCommand)
      .rejects(new ResourceNotFoundException({ message: 'Requested resource not found', $metadata: {} }));
    await expect(store().get('s1')).rejects.toMatchObject({
      status: 500,
      message: `the session store's DynamoDB table ${TABLE} does not exist`,
    });
  });

  it('passes on only the name of other SDK errors, whose messages can carry account details', async () => {
    const denied = Object.assign(new Error('User arn:aws:iam::123456789012:role/x is not authorized'), {
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 400 },
    });
    sdk.on(QueryCommand).rejects(denied);
    const error = (await store()
      .running()
      .catch((e: unknown) => e)) as WebDriverError;
    expect(error).toMatchObject({ status: 500, cause: denied });
    expect(error.message).toBe(`the session store (DynamoDB table ${TABLE}) failed: AccessDeniedException`);
  });

  it('takes the slot and counts it for the user and the pool in one transaction, trying again after a conflict', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    sdk
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'TransactionConflict', 'None'))
      .resolves({});
    expect(
      await store().acquire('s1', { pool: 'fargate', poolLimit: 3, user: 'alice', userLimit: 2 }),
    ).toEqual({
      ok: true,
    });
    const calls = sdk.commandCalls(TransactWriteCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args[0].input).toEqual({
      TransactItems: [
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: 'slots',
              sk: 's1',
              pool: 'fargate',
              user: 'alice',
              token: expect.any(String),
              acquiredAt: T0,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName: TABLE,
            Key: { pk: 'counters', sk: 'user#alice' },
            UpdateExpression: 'ADD held :one',
            ConditionExpression: 'attribute_not_exists(held) OR held < :limit',
            ExpressionAttributeValues: { ':one': 1, ':limit': 2 },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Update: {
            TableName: TABLE,
            Key: { pk: 'counters', sk: 'pool#fargate' },
            UpdateExpression: 'ADD held :one',
            ConditionExpression: 'attribute_not_exists(held) OR held < :limit',
            ExpressionAttributeValues: { ':one': 1, ':limit': 3 },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
    });
  });

  it('counts a user without a limit unconditionally', async () => {
    sdk.on(TransactWriteCommand).resolves({});
    await store().acquire('s1', { pool: 'fargate', poolLimit: 3, user: 'guest' });
    const items = sdk.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems;
    expect(items?.[1]).toEqual({
      Update: {
        TableName: TABLE,
        Key: { pk: 'counters', sk: 'user#guest' },
        UpdateExpression: 'ADD held :one',
        ExpressionAttributeValues: { ':one': 1 },
      },
    });
  });

  it('answers 503 when conflicts go on past the last attempt', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    sdk.on(TransactWriteCommand).rejects(cancelled('None', 'None', 'TransactionConflict'));
    await expect(
      store().acquire('s1', { pool: 'fargate', poolLimit: 3, user: 'alice' }),
    ).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining('TransactionConflict'),
    });
    expect(sdk.commandCalls(TransactWriteCommand)).toHaveLength(MAX_ATTEMPTS);
  });

  it('never throws from touch: a failed write goes to onError', async () => {
    sdk
      .on(UpdateCommand)
      .rejects(new ProvisionedThroughputExceededException({ message: 'slow', $metadata: {} }));
    const onError = vi.fn();
    const subject = store({ onError });
    expect(() => subject.touch('s1', T0)).not.toThrow();
    await subject.settled();
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ status: 503 }), {
      operation: 'touch',
      key: 's1',
    });
  });

  it('does not report a touch of a session that is not running', async () => {
    sdk.on(UpdateCommand).rejects(
      Object.assign(new Error('The conditional request failed'), {
        name: 'ConditionalCheckFailedException',
      }),
    );
    const onError = vi.fn();
    const subject = store({ onError });
    subject.touch('gone', T0);
    await subject.settled();
    expect(sdk.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(onError).not.toHaveBeenCalled();
  });
});
