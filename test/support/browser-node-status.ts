/**
 * A browser node's /status on 127.0.0.1, standing in for the WebDriver endpoint of an ECS task or EKS pod
 * in launcher and cleanup tests, so their readiness polls make real HTTP requests.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface BrowserNodeStatus {
  /** The port /status listens on: the pool's `port`. Set once the file's tests start. */
  readonly port: number;
  /** What /status answers as `ready`; the test may replace it (initially always ready). */
  ready: () => boolean;
  /** Requests so far, to any path; the test may reset it. */
  requests: number;
}

/** For a test file: the /status endpoint, started before its tests and closed after. Other paths: 404. */
export function useBrowserNodeStatus(): BrowserNodeStatus {
  let server: Server | undefined;
  const node = {
    get port() {
      if (!server) throw new Error('the browser node status server is not started yet');
      return (server.address() as AddressInfo).port;
    },
    ready: () => true,
    requests: 0,
  };
  beforeAll(async () => {
    server = createServer((req, res) => {
      node.requests++;
      res.writeHead(req.url === '/status' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ value: { ready: node.ready(), message: 'node' } }));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  return node;
}
