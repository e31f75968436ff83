/**
 * Global setup: after the whole suite, no chromium or chromedriver that gridgate started during it may
 * still run (DESIGN invariant 4), nor the display, x11vnc or websockify of a fake task's VNC view.
 * gridgate's browsers (and the fakes' processes) carry LAUNCHED_BY_ENV in their environment, so browsers
 * other programs run on the same machine do not count; those of this run are known by its RUN_ENV, which
 * the fakes' processes inherit, or, for gridgate's browsers, which get none of gridgate's environment, by
 * their TMPDIR inside this run's own temporary folder (every worker and server of the run makes its
 * browsers' folders there).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAUNCHED_BY_ENV } from '../../functions/pools/local/chromedriver-launcher';
import { until } from './until';

// Marks this run: workers and the browsers they start inherit it, so a suite running at the same time
// (another checkout, a benchmark) is not counted.
const RUN_ENV = 'GRIDGATE_TEST_RUN';

function gridgateBrowserPids(run: string, runTmp: string): string[] {
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
        const ofThisRun =
          environ.includes(`${RUN_ENV}=${run}`) || environ.some((v) => v.startsWith(`TMPDIR=${runTmp}/`));
        return environ.some((v) => v.startsWith(`${LAUNCHED_BY_ENV}=`)) && ofThisRun;
      } catch {
        return false; // gone meanwhile
      }
    });
  });
}

export default function setup() {
  const run = randomUUID();
  process.env[RUN_ENV] = run;
  // Short: Chromium's socket paths under it must stay within the 108 bytes of a unix socket's name.
  const runTmp = mkdtempSync(join(tmpdir(), 'gg-run-'));
  // Passable by others, as /tmp is: namespaced browsers run as users of their own (browser-user.ts).
  chmodSync(runTmp, 0o711);
  process.env.TMPDIR = runTmp;
  return async () => {
    let left: string[] = [];
    const gone = await until(
      () => {
        left = gridgateBrowserPids(run, runTmp);
        return left.length === 0;
      },
      'the browsers gridgate started are gone',
      { timeoutMs: 5000, intervalMs: 100 },
    ).catch(() => false);
    if (gone) {
      rmSync(runTmp, { recursive: true, force: true });
      return;
    }
    const detail = execFileSync('ps', ['-o', 'pid,ppid,etime,args', '-p', left.join(',')], {
      encoding: 'utf8',
    });
    console.error(`browsers gridgate started are still running after the test suite:\n${detail}`);
    // A teardown error alone does not fail vitest's exit status.
    process.exitCode = 1;
    throw new Error('browsers left running after the test suite');
  };
}
