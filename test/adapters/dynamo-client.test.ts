/**
 * The DynamoDB client the entries make, over a "store" that accepts connections and never answers (a
 * hung endpoint, not a refusing one): every call ends with the store's 503 rather than waiting for the
 * SDK's 300 s socket default. The endpoint comes the way a user points heads at a local store, through
 * the SDK's AWS_ENDPOINT_URL_DYNAMODB.
 */
import { describe, expect, it } from 'vitest';
import { WebDriverError } from '../../functions/core/errors';
import { awsAdapters } from '../../functions/entry/aws-adapters';
import { CollectingLogger } from '../support/fakes';
import { useHungAwsEndpoint } from '../support/hung-aws-endpoint';

const sockets = useHungAwsEndpoint(['DYNAMODB']);

describe('the entries’ DynamoDB client', () => {
  it('gives up on a store that never answers, and the store answers 503 with Retry-After', async () => {
    const store = await awsAdapters.sessionStore('sessions', new CollectingLogger());
    const error = await store.inUse().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(sockets.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(WebDriverError);
    expect(error).toMatchObject({ status: 503, headers: { 'Retry-After': '5' } });
    expect((error as WebDriverError).message).toMatch(/is unavailable: ETIMEDOUT \(network\); try again/);
  });
});
