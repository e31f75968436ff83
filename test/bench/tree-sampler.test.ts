/** The suite's CPU by program: processes that come and go below a root, each counted under its name. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, expect, it } from 'vitest';
import { TreeSampler } from '../../bench/tree-sampler';
import { until } from '../support/until';

// Busy for 300 ms of its own CPU time, however long the machine's load makes that take.
const BURN = `const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) < 300_000);`;

let shell: ChildProcess | undefined;
afterEach(async () => {
  if (shell?.pid && shell.exitCode === null && shell.signalCode === null) {
    const exited = once(shell, 'exit');
    process.kill(-shell.pid, 'SIGKILL');
    await exited;
  }
});

it('counts a helper that came and went under its own name, up to its last reading', async () => {
  shell = spawn('sh', ['-c', `"${process.execPath}" -e '${BURN}'; echo done; exec sleep 30`], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const sampler = new TreeSampler(shell.pid as number, 20);
  let output = '';
  shell.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await until(() => output.includes('done'), 'the busy helper ended', { timeoutMs: 30_000, intervalMs: 20 });
  const cpu = sampler.stop();
  // Seen until its last 20 ms (and /proc's 10 ms ticks); the whole of it in the total, through the shell.
  expect(cpu.byProgram.node).toBeGreaterThanOrEqual(0.2);
  expect(cpu.total).toBeGreaterThanOrEqual(0.28);
  expect(cpu.sampled).toBeCloseTo(
    Object.values(cpu.byProgram).reduce((a, b) => a + b, 0),
    6,
  );
  expect(cpu.total - cpu.sampled).toBeLessThan(0.2);
});
