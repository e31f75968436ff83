/**
 * Entry of the child process that runs gridgate for the benchmark: the real Node server
 * (startGrid) with the built-in local Chromium pool on a free loopback port, keeping as many
 * browsers warm (chromedriver and Chromium started ahead) as its first argument says (0 by default). It runs apart from the
 * benchmark's client, as a grid runs apart from a test, and can be profiled on its own (--cpu-prof).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonLogger } from '../functions/adapters/stdout/json-logger';
import { parseConfig } from '../functions/core/config';
import type { LogEvent, Logger } from '../functions/core/ports';
import { startGrid } from '../functions/entry/start-grid';
import { chromiumVersion } from '../functions/pools/local/ensure-chromium';

export interface ChildReady {
  url: string;
  chromiumVersion: string;
}

// The session lifecycle is expected; anything else (failures, rejected IDs) goes to stderr.
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

const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
// Recorded sessions' videos go to a directory of this run's own, removed when it stops.
const recordings = await mkdtemp(join(tmpdir(), 'gridgate-bench-recordings-'));
const config = parseConfig(
  { port: 0, host: '127.0.0.1', recording: { directory: recordings } },
  { builtInBrowserVersion: version },
);
const warm = Number(process.argv[2] ?? 0);
// The built-in pool with only `warm` changed, so both variants ask for Chromium the same way.
if (warm > 0 && config.pools.local?.kind === 'local') config.pools.local = { ...config.pools.local, warm };
const grid = await startGrid(config, randomBytes(32), logger);

let closing = false;
const close = () => {
  if (closing) return;
  closing = true;
  grid
    .close()
    .then(() => rm(recordings, { recursive: true, force: true }))
    .then(
      () => process.exit(0),
      (error: Error) => {
        console.error(`gridgate: close failed: ${error.message}`);
        process.exit(1);
      },
    );
};
process.on('message', (message) => {
  if (message === 'stop') close();
  // How much CPU gridgate has used so far: load-independent, unlike latency on a shared machine.
  if (message === 'cpu-usage') process.send?.({ cpuUsage: process.cpuUsage() });
});
// The benchmark went away without saying so: end the sessions anyway.
process.once('disconnect', close);
// `on`, not `once`: a second Ctrl-C must not end the process before its browsers are stopped.
process.on('SIGINT', close);
process.on('SIGTERM', close);
process.send?.({ url: grid.url, chromiumVersion: version } satisfies ChildReady);
