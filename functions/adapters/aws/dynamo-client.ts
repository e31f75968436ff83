/**
 * The DynamoDB client every entry makes (router, Node server, background Lambdas), with time bounds the
 * SDK does not set itself: without them a store that hangs rather than refusing holds a new session, a
 * sweep or a DELETE for the socket's 300 s idle default, times three attempts. Each call's attempt gets
 * CONNECT_TIMEOUT_MS to connect and REQUEST_TIMEOUT_MS in all; the SDK retries it (TimeoutError is
 * transient) and then the store answers 503 with Retry-After (dynamo-store-error.ts).
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

/** DynamoDB answers in milliseconds; a connection that takes this long is not coming. */
export const CONNECT_TIMEOUT_MS = 2000;
/** A transaction under contention stays well under this; past it the attempt is abandoned. */
export const REQUEST_TIMEOUT_MS = 5000;

/** `overrides`: what a test or a special deployment sets (endpoint, credentials); the bounds stay. */
export function newDynamoClient(overrides: DynamoDBClientConfig = {}): DynamoDBClient {
  return new DynamoDBClient({
    ...overrides,
    requestHandler: {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      // Without it the SDK only warns when requestTimeout passes and goes on waiting.
      throwOnRequestTimeout: true,
    },
  });
}
