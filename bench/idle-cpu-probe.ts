/**
 * A probe, not a part of `npm run bench`: what gridgate's Node process spends while one session is open and no
 * request comes (its background work: timers, the browser watch, sweeps), in CPU per second from the
 * scheduler's nanoseconds (process-cpu.ts threadsCpuNanos) and context switches per second, over `seconds`.
 *
 *   npx tsx bench/idle-cpu-probe.ts [seconds, default 20] [windows, default 3]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { GridgateServer } from './gridgate-server';
import { threadsCpuNanos } from './process-cpu';
import { WebDriverClient } from './webdriver-client';

const [seconds, windows] = [Number(process.argv[2] ?? 20), Number(process.argv[3] ?? 3)];

/** Voluntary and involuntary context switches of all the process's threads so far. */
function contextSwitches(pid: number): number {
  let switches = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    for (const [, count] of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm))
      switches += Number(count);
  }
  return switches;
}

const grid = await GridgateServer.start();
const client = new WebDriverClient();
try {
  const session = await client.newSession(grid.origin, { browserName: 'chrome' });
  // The replacement ready chromedriver and the browser's own start settle first.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  for (let window = 0; window < windows; window++) {
    const [cpu, switches] = [threadsCpuNanos(grid.pid), contextSwitches(grid.pid)];
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const ms = (threadsCpuNanos(grid.pid) - cpu) / 1e6 / seconds;
    const perSecond = (contextSwitches(grid.pid) - switches) / seconds;
    console.log(
      `idle, one session open: ${ms.toFixed(2)} ms of CPU a second, ${perSecond.toFixed(1)} context switches a second`,
    );
  }
  await client.deleteSession(grid.origin, session);
} finally {
  await grid.stop();
}
