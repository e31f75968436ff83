/**
 * The DynamoDB client the entries make, over a "store" that accepts connections and never answers (a
 * hung endpoint, not a refusing one): every call ends with the store's 503 rather than waiting for the
 * SDK's 300 s socket default. The endpoint comes the way a user points heads at a local store, through
 * the SDK's AWS_ENDPOINT_URL_DYNAMODB.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebDriverError } from '../../functions/core/errors';
import { awsAdapters } from '../../functions/entry/aws-adapters';
import { CollectingLogger } from '../support/fakes';

let hung: Server;
const sockets: Socket[] = [];

beforeAll(async () => {
  hung = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  const { port } = hung.address() as { port: number };
  vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', `http://127.0.0.1:${port}`);
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  // One attempt per call keeps the test short; the bound is per attempt either way.
  vi.stubEnv('AWS_MAX_ATTEMPTS', '1');
});

afterAll(async () => {
  vi.unstubAllEnvs();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => hung.close(resolve));
});

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
