/**
 * Global setup: after the whole suite, no chromium or chromedriver that gridgate started during it may
 * still run (DESIGN invariant 4), nor the display, x11vnc or websockify of a fake task's VNC view.
 * gridgate's browsers (and the fakes' processes) carry LAUNCHED_BY_ENV in their environment and inherit
 * this run's RUN_ENV, so browsers other programs run on the same machine do not count.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { LAUNCHED_BY_ENV } from '../../functions/adapters/local/chromedriver-launcher';
import { until } from './until';

// Marks this run: workers and the browsers they start inherit it, so a suite running at the same time
// (another checkout, a benchmark) is not counted.
const RUN_ENV = 'GRIDGATE_TEST_RUN';

function gridgateBrowserPids(run: string): string[] {
  return ['chromium', 'chromedriver', 'Xvfb', 'x11vnc', 'websockify'].flatMap((name) => {
    let pids: string[];
    try {
      pids = execFileSync('pgrep', ['-x', name], { encoding: 'utf8' }).split('\n').filter(Boolean);
    } catch {
      return []; // pgrep exits 1 when nothing matches
    }
    return pids.filter((pid) => {
      try {
        const environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
        return (
          environ.some((v) => v.startsWith(`${LAUNCHED_BY_ENV}=`)) && environ.includes(`${RUN_ENV}=${run}`)
        );
      } catch {
        return false; // gone meanwhile
      }
    });
  });
}

export default function setup() {
  const run = randomUUID();
  process.env[RUN_ENV] = run;
  return async () => {
    let left: string[] = [];
    const gone = await until(
      () => {
        left = gridgateBrowserPids(run);
        return left.length === 0;
      },
      'the browsers gridgate started are gone',
      { timeoutMs: 5000, intervalMs: 100 },
    ).catch(() => false);
    if (gone) return;
    const detail = execFileSync('ps', ['-o', 'pid,ppid,etime,args', '-p', left.join(',')], {
      encoding: 'utf8',
    });
    console.error(`browsers gridgate started are still running after the test suite:\n${detail}`);
    // A teardown error alone does not fail vitest's exit status.
    process.exitCode = 1;
    throw new Error('browsers left running after the test suite');
  };
}
