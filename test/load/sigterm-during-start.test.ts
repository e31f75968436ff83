/**
 * `npm start` with worker processes (a child process, as users run it) receiving SIGTERM in the middle of
 * its start: the primary has launched its pool's warm browser (chromedriver and Chromium, detached, with a
 * profile) and forked its workers, which a preload holds until the test lets them go
 * (test/support/held-workers.cjs). The server stops once it has started, ends what the start launched and
 * exits 0: no chromedriver, Chromium or worker of it is left.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { PROFILE_PREFIX } from '../../functions/pools/local/chromedriver-launcher';
import { launchedProcesses } from '../support/launched-processes';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';
import { until } from '../support/until';
import { eventually } from './served-fake-grid';

const HELD_WORKERS = fileURLToPath(new URL('../support/held-workers.cjs', import.meta.url));
const WORKERS = 2;
const WARM_POOL = {
  port: 0,
  host: '127.0.0.1',
  workers: WORKERS,
  browsers: { chrome: { defaultVersion: '156', versions: { '156': { pools: ['local'] } } } },
  pools: { local: { kind: 'local', maxSessions: 1, warm: 1 } },
};

let server: NodeServerProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  server?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = dir = undefined;
});

/** The processes whose parent is `pid` now, by /proc. */
function childrenOf(pid: number): { pid: number; name: string }[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === pid ? [{ pid: Number(entry), name }] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('SIGTERM while the server starts', { timeout: 120_000 }, () => {
  it('stops the server once started, leaving no chromedriver or worker, and exits 0', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gridgate-held-'));
    const gate = join(dir, 'open');
    const running = startNodeServer(WARM_POOL, {
      NODE_OPTIONS: `--require ${HELD_WORKERS}`,
      HELD_WORKERS_GATE: gate,
    });
    server = running;
    const pid = running.child.pid as number;
    // The start is under way: the pool's warm browser launched, the workers forked and held.
    const started =
      (await until(() => {
        const workers = childrenOf(pid).filter((child) => child.name === 'node');
        const browsers = launchedProcesses(undefined, pid);
        const both =
          browsers.some((p) => p.name === 'chromium') && browsers.some((p) => p.name === 'chromedriver');
        return workers.length === WORKERS && both ? [...workers, ...browsers] : undefined;
      }, 'the primary has its warm browser launched and its workers forked')) ?? [];

    running.child.kill('SIGTERM');
    writeFileSync(gate, '');
    const code = await running.exited;
    await eventually(() => {
      expect(launchedProcesses(undefined, pid)).toEqual([]);
      expect(started.filter((child) => alive(child.pid))).toEqual([]);
    }, 20_000);
    // The warm browser's profile went with it (a process killed by the signal would leave it).
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith(`${PROFILE_PREFIX}${pid}-`))).toEqual([]);
    expect(running.lines.map((line) => line.event)).toContain('SERVER_STOPPED');
    expect(code).toBe(0);
  });
});
