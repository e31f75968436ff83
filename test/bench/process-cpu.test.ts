/** The benchmark's CPU meter: what a process tree spends between two readings, helpers that ended included. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuBetween, readTreeCpu, threadsCpuNanos } from '../../bench/process-cpu';
import { until } from '../support/until';

// Busy for 400 ms of its own CPU time (process.cpuUsage), however long the machine's load makes that take.
const BURN = `const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) < 400_000);`;

let shell: ChildProcess | undefined;
afterEach(async () => {
  // The whole group: the shell's children too, which would otherwise outlive the test.
  if (shell?.pid && shell.exitCode === null && shell.signalCode === null) {
    const exited = once(shell, 'exit');
    process.kill(-shell.pid, 'SIGKILL');
    await exited;
  }
});

describe('readTreeCpu and cpuBetween', () => {
  it('count a helper that started and ended between the readings, through the parent that waited for it', async () => {
    // The shell waits for node, then sleeps: node has ended (and been waited for) at the second reading.
    shell = spawn('sh', ['-c', `"${process.execPath}" -e '${BURN}'; echo done; exec sleep 30`], {
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    const root = shell.pid as number;
    const before = readTreeCpu(root);
    let output = '';
    shell.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await until(() => output.includes('done'), 'the busy helper ended', {
      timeoutMs: 30_000,
      intervalMs: 20,
    });
    const seconds = cpuBetween(before, readTreeCpu(root));
    expect(seconds).toBeGreaterThanOrEqual(0.38);
    expect(seconds).toBeLessThan(5);
  });

  it('count a process still running below the root, started after the first reading', async () => {
    shell = spawn(
      'sh',
      ['-c', `"${process.execPath}" -e '${BURN}; console.log("done"); setTimeout(() => {}, 30_000)'`],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: true,
      },
    );
    const root = shell.pid as number;
    const before = readTreeCpu(root);
    let output = '';
    shell.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await until(() => output.includes('done'), 'the busy child is idle', {
      timeoutMs: 30_000,
      intervalMs: 20,
    });
    expect(cpuBetween(before, readTreeCpu(root))).toBeGreaterThanOrEqual(0.38);
  });
});

describe('threadsCpuNanos', () => {
  it('counts what a process spends between two readings to the millisecond, and nothing while it waits', async () => {
    const before = threadsCpuNanos(process.pid);
    const spent = process.cpuUsage();
    while (process.cpuUsage(spent).user + process.cpuUsage(spent).system < 30_000);
    const busy = (threadsCpuNanos(process.pid) - before) / 1e6;
    // 30 ms of its own CPU: at least that, and not the 10 ms steps of /proc/PID/stat's ticks plus whatever ran.
    expect(busy).toBeGreaterThanOrEqual(29);
    expect(busy).toBeLessThan(200);
    const idle = threadsCpuNanos(process.pid);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((threadsCpuNanos(process.pid) - idle) / 1e6).toBeLessThan(30);
  });

  it('reads 0 for a process that is gone', () => {
    expect(threadsCpuNanos(2 ** 22 + 1)).toBe(0);
  });
});
