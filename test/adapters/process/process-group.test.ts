/**
 * A stopped browser's process group counts as gone once nothing in it runs: zombies (ended, not yet reaped
 * by a parent that is slow or never reaps) do not hold a stop, and so a DELETE, for seconds.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { groupRuns } from '../../../functions/adapters/process/process-group';
import { until } from '../../support/until';

// A parent that puts its child in a group of its own and never waits for it: the child, once ended, stays
// a zombie in that group for as long as the parent lives.
const UNREAPED_CHILD = `
import os, sys, time
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    sys.stdin.read()
    os._exit(0)
os.setpgid(pid, pid)
print(pid, flush=True)
time.sleep(60)
`;

let parent: ChildProcess | undefined;
afterEach(async () => {
  if (parent && parent.exitCode === null && parent.signalCode === null) {
    const exited = once(parent, 'exit');
    parent.kill('SIGKILL');
    await exited;
  }
});

const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.[0];

describe('groupRuns', () => {
  it('counts a group whose only process is a zombie as no longer running', async () => {
    // The child inherits stdin and ends when it closes.
    parent = spawn('python3', ['-c', UNREAPED_CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
    const [line] = (await once(
      createInterface({ input: parent.stdout as NodeJS.ReadableStream }),
      'line',
    )) as [string];
    const child = Number(line);
    expect(groupRuns(child)).toBe(true);

    parent.stdin?.end();
    await until(() => state(child) === 'Z', 'the child is a zombie');
    // What the stop used to ask: the zombie still answers a signal to its group.
    expect(() => process.kill(-child, 0)).not.toThrow();
    expect(groupRuns(child)).toBe(false);
  });

  it('counts a group that is gone as not running', async () => {
    expect(groupRuns(2 ** 22 + 12_345)).toBe(false);
  });
});
