/**
 * Entry of the child process that runs gridgate for the proxy benchmark: the real Node server
 * (startGrid) with one hub pool, "fake", in front of the fake upstream whose origin is argv[2], holding
 * at most argv[3] sessions (default 4). No browser is involved: every session is the upstream's, so
 * what is measured is gridgate's forwarding.
 */
import { randomBytes } from 'node:crypto';
import { JsonLogger } from '../functions/adapters/stdout/json-logger';
import { parseConfig } from '../functions/core/config';
import type { LogEvent, Logger } from '../functions/core/ports';
import { startGrid } from '../functions/entry/start-grid';

export interface ProxyChildReady {
  url: string;
}

export interface LiveHeap {
  liveHeapBytes: number;
}

const upstream = process.argv[2];
if (!upstream) throw new Error('usage: proxy-gridgate-child.ts UPSTREAM_ORIGIN [MAX_SESSIONS]');
// The scale benchmark holds a thousand sessions open at once; the proxy benchmark needs one.
const maxSessions = Number(process.argv[3] ?? 4);

const ROUTINE = new Set<LogEvent>([
  'SERVER_STARTED',
  'SERVER_STOPPING',
  'SERVER_STOPPED',
  'SESSION_REQUESTED',
  'SESSION_CREATED',
  'SESSION_DELETED',
  'SESSION_ENDED',
]);
const json = new JsonLogger((line) => process.stderr.write(`gridgate: ${line}`));
const logger: Logger = { log: (event, fields) => ROUTINE.has(event) || json.log(event, fields) };

const config = parseConfig(
  {
    port: 0,
    host: '127.0.0.1',
    browsers: { chrome: { defaultVersion: '1.0', versions: { '1.0': { pools: ['fake'] } } } },
    pools: { fake: { kind: 'hub', url: upstream, maxSessions } },
  },
  { builtInBrowserVersion: 'unused' },
);
const grid = await startGrid(config, randomBytes(32), logger);

let closing = false;
const close = () => {
  if (closing) return;
  closing = true;
  grid.close().then(
    () => process.exit(0),
    (error: Error) => {
      console.error(`gridgate: close failed: ${error.message}`);
      process.exit(1);
    },
  );
};
process.on('message', (message) => {
  if (message === 'stop') close();
  // The scale benchmark's question "what does a session cost": live objects only, so garbage V8 has
  // not collected yet does not count (the process runs with --expose-gc for this).
  if (message === 'live-heap') {
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ liveHeapBytes: process.memoryUsage().heapUsed } satisfies LiveHeap);
  }
});
process.once('disconnect', close);
process.on('SIGINT', close);
process.on('SIGTERM', close);
process.send?.({ url: grid.url } satisfies ProxyChildReady);
