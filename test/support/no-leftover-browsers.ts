/**
 * Global setup: after the whole suite, no chromium or chromedriver started during it may still run
 * (DESIGN invariant 4). Processes that were running before the suite are not counted.
 */
import { execFileSync } from 'node:child_process';

function browserPids(): Set<string> {
  const pids = new Set<string>();
  for (const name of ['chromium', 'chromedriver']) {
    try {
      for (const pid of execFileSync('pgrep', ['-x', name], { encoding: 'utf8' }).split('\n'))
        if (pid) pids.add(pid);
    } catch {
      // pgrep exits 1 when nothing matches.
    }
  }
  return pids;
}

export default function setup() {
  const before = browserPids();
  return async () => {
    let left: string[] = [];
    for (let attempt = 0; attempt < 50; attempt++) {
      left = [...browserPids()].filter((pid) => !before.has(pid));
      if (left.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const detail = execFileSync('ps', ['-o', 'pid,ppid,etime,args', '-p', left.join(',')], {
      encoding: 'utf8',
    });
    throw new Error(`browsers left running after the test suite:\n${detail}`);
  };
}
