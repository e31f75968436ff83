/**
 * An AWS endpoint that accepts connections and never answers (a hung one, not a refusing one), on loopback,
 * given to the named services through the SDK's own AWS_ENDPOINT_URL_<SERVICE>, with test credentials and
 * one attempt per call; for the tests of the bounds every client on the request path must keep.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, vi } from 'vitest';

/**
 * For a test file: the endpoint for these services (e.g. ['ECS', 'SECRETS_MANAGER']), before its tests; the
 * connections it accepted, to show a client did reach it.
 */
export function useHungAwsEndpoint(services: readonly string[]): readonly Socket[] {
  let hung: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    hung = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const { port } = hung.address() as { port: number };
    for (const service of services) vi.stubEnv(`AWS_ENDPOINT_URL_${service}`, `http://127.0.0.1:${port}`);
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
  return sockets;
}
