/**
 * DynamoSessionStore against a mocked DynamoDB SDK: the W3C errors its SDK failures become (throttled,
 * unreachable, missing table, other errors named only), and the exact transactions it writes.
 */
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
import { sampleRecord } from '../contract/store-samples';
import { FixedClock } from '../support/fakes';

// The store's records are dated T0, as the contract's.
const T0 = sampleRecord('any').createdAt;

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
    new DynamoSessionStore({ client, table: TABLE, clock: new FixedClock(T0), ...options });

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
