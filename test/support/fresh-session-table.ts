/** A test file's DynamoDB session table on dynalite, new for each test. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from './dynalite';

/** The session table of the test running now, and a way to reach it as a second caller would. */
export interface FreshSessionTable {
  readonly client: DynamoDBClient;
  readonly table: string;
  /** Another client of the same server (destroy it when done). */
  newClient: () => DynamoDBClient;
}

/**
 * For a test file: one dynalite for the file and a new session table for each test, deleted after it, so
 * no test sees another's items.
 */
export function useFreshSessionTable(): FreshSessionTable {
  let dynamo: DynaliteServer | undefined;
  let current: SessionTableUnderTest | undefined;
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the session table exists only while a test runs');
    return value;
  };
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => {
    await dynamo?.close();
  });
  beforeEach(async () => {
    current = await started(dynamo).createSessionTable();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    get client() {
      return started(current).client;
    },
    get table() {
      return started(current).table;
    },
    newClient: () => started(dynamo).newClient(),
  };
}
