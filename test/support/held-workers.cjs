/**
 * Preloaded (node --require, through NODE_OPTIONS) into `npm start` with worker processes: each worker
 * process waits, before any of the server's code runs, until the file HELD_WORKERS_GATE exists. The
 * primary's start is then under way (its chromedriver kept ready, its workers forked) for as long as the
 * test wants, so a signal can arrive in the middle of it. The primary itself is not held.
 */
const fs = require('node:fs');

const gate = process.env.HELD_WORKERS_GATE;
if (!gate) throw new Error('held-workers: HELD_WORKERS_GATE is not set');

// NODE_UNIQUE_ID is how Node's cluster module tells a worker it is one.
if (process.env.NODE_UNIQUE_ID !== undefined) {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!fs.existsSync(gate)) Atomics.wait(pause, 0, 0, 20);
}
