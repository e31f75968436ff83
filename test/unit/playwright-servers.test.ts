/**
 * The "no Playwright server left" checks count the servers of the grid under test alone: a process running a
 * Playwright server's script outside the grid's process tree (another test file's grid, run at the same time)
 * is not counted, one inside it (a server's bridge, a grandchild of the grid) is.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { playwrightServers } from '../support/socket-session-clients';
import { until } from '../support/until';

// A process whose command line names a Playwright server's script as a grid's servers do, and that only waits.
const IDLE = 'setInterval(() => {}, 60_000)';

// The process groups of the decoys (their shells' groups, which setsid and `detached` make new), ended after each test.
const decoys: number[] = [];

afterEach(() => {
  for (const group of decoys.splice(0)) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** A process's parent (`ppid`) or process group (`pgrp`), from its /proc stat fields after its name. */
function statOf(pid: number, field: 'ppid' | 'pgrp'): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[field === 'ppid' ? 1 : 2]);
}

describe('playwrightServers', () => {
  it('does not count a matching process outside the grid, which its own parent counts', async () => {
    // The shell starts the decoy in the background and ends: the decoy is re-parented out of this process's tree.
    const pid = Number(
      execFileSync('setsid', ['sh', '-c', '"$NODE" -e "$IDLE" "$SCRIPT" >/dev/null 2>&1 & echo $!'], {
        encoding: 'utf8',
        env: { NODE: process.execPath, IDLE, SCRIPT: 'attach-server.cjs' },
      }).trim(),
    );
    decoys.push(statOf(pid, 'pgrp'));
    await until(
      () => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('attach-server.cjs'),
      'the decoy runs',
    );
    expect(playwrightServers(statOf(pid, 'ppid'))).toContainEqual(
      expect.stringMatching(new RegExp(`^${pid} .*attach-server\\.cjs`)),
    );
    expect(playwrightServers(process.pid).filter((line) => line.startsWith(`${pid} `))).toEqual([]);
  });

  it('counts a matching grandchild of the grid', async () => {
    // The shell stays (the `; :` keeps it from exec-ing node), so the decoy is the grid's grandchild; the
    // script's name comes from the environment, so the shell's own command line does not match.
    const shell = spawn('sh', ['-c', '"$NODE" -e "$IDLE" "$SCRIPT"; :'], {
      detached: true,
      stdio: 'ignore',
      env: { NODE: process.execPath, IDLE, SCRIPT: 'devtools-pipe.cjs' },
    });
    decoys.push(shell.pid as number);
    const line = await until(
      () => playwrightServers(process.pid).find((found) => found.includes('devtools-pipe.cjs')),
      'the grandchild is counted',
    );
    expect(statOf(Number(line?.split(' ')[0]), 'ppid')).toBe(shell.pid);
  });
});
