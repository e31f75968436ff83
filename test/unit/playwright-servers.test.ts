/**
 * The "no Playwright server left" checks count the servers of the grid under test alone: a process running a
 * Playwright server's script outside the grid's process tree (another test file's grid, run at the same time)
 * is not counted, one inside it (a server's bridge, a grandchild of the grid) is, and so is one a killed grid
 * left, re-parented out of its tree, by the marks gridgate gave it (its launched-by mark, its session folder).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { playwrightServers } from '../support/socket-session-clients';
import { until } from '../support/until';

// A process whose command line names a Playwright server's script as a grid's servers do, and that only waits.
const IDLE = 'setInterval(() => {}, 60_000)';

// The process groups of the decoys (their shells' groups, which setsid and `detached` make new), ended after each test.
const decoys: number[] = [];
const folders: string[] = [];

afterEach(() => {
  for (const group of decoys.splice(0)) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/**
 * A grid (a shell) that starts a process running `script` as `how` says, then is killed (SIGKILL): the process
 * is re-parented out of the grid's tree. `how` is shell run in the process before it execs node, and may name
 * the grid by its pid, `$GRID`.
 */
async function killedGridLeaving(script: string, how: string): Promise<{ grid: number; pid: number }> {
  const grid = spawn(
    'sh',
    ['-c', `GRID=$$; (${how}; exec "$NODE" -e "$IDLE" "$SCRIPT") & echo $!; exec sleep 60`],
    {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { NODE: process.execPath, IDLE, SCRIPT: script, ROOT: root() },
    },
  );
  decoys.push(grid.pid as number);
  const [line] = (await once(grid.stdout, 'data')) as [Buffer];
  const pid = Number(line.toString().trim());
  await until(() => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(script), 'the decoy runs');
  const killed = once(grid, 'exit');
  grid.kill('SIGKILL');
  await killed;
  await until(() => statOf(pid, 'ppid') !== grid.pid, 'the decoy is re-parented');
  return { grid: grid.pid as number, pid };
}

/** A folder of this test's for session folders, removed after it. */
function root(): string {
  folders[0] ??= mkdtempSync(join(tmpdir(), 'gg-playwright-servers-'));
  return folders[0];
}

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

  it('counts a server a killed grid left by its launched-by mark, not one marked by another grid', async () => {
    const marked = 'export GRIDGATE_LAUNCHED_BY=$GRID';
    const left = await killedGridLeaving('attach-server.cjs', marked);
    const other = await killedGridLeaving('attach-server.cjs', marked);
    expect(playwrightServers(left.grid)).toEqual([expect.stringMatching(new RegExp(`^${left.pid} `))]);
    expect(playwrightServers(other.grid)).toEqual([expect.stringMatching(new RegExp(`^${other.pid} `))]);
  });

  it("counts a bridge a killed grid left by its session folder, not one in another grid's", async () => {
    const inFolder = (name: string) => `mkdir -p "$ROOT/${name}" && cd "$ROOT/${name}"`;
    const left = await killedGridLeaving(
      'devtools-pipe.cjs',
      inFolder('gridgate-session-$GRID-playwright-a1'),
    );
    // Another grid's folder, whose pid begins with this grid's: only the whole pid counts.
    const other = await killedGridLeaving(
      'devtools-pipe.cjs',
      inFolder(`gridgate-session-${left.grid}0-playwright-b2`),
    );
    expect(playwrightServers(left.grid)).toEqual([expect.stringMatching(new RegExp(`^${left.pid} `))]);
    expect(playwrightServers(left.grid).join()).not.toContain(`${other.pid} `);
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
