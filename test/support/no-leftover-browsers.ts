/**
 * Global setup: after the whole suite, no chromium or chromedriver that gridgate started during it may
 * still run (DESIGN invariant 4). gridgate's browsers carry LAUNCHED_BY_ENV in their environment, so
 * browsers that other programs run on the same machine (a benchmark, a developer's own) do not count.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { LAUNCHED_BY_ENV } from '../../functions/adapters/local/chromedriver-launcher';

function gridgateBrowserPids(): string[] {
  return ['chromium', 'chromedriver'].flatMap((name) => {
    let pids: string[];
    try {
      pids = execFileSync('pgrep', ['-x', name], { encoding: 'utf8' }).split('\n').filter(Boolean);
    } catch {
      return []; // pgrep exits 1 when nothing matches
    }
    return pids.filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`${LAUNCHED_BY_ENV}=`);
      } catch {
        return false; // gone meanwhile
      }
    });
  });
}

export default function setup() {
  const before = new Set(gridgateBrowserPids());
  return async () => {
    let left: string[] = [];
    for (let attempt = 0; attempt < 50; attempt++) {
      left = gridgateBrowserPids().filter((pid) => !before.has(pid));
      if (left.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
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
