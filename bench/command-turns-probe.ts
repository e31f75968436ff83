/**
 * A probe, not a part of `npm run bench`: gridgate and the plain Node proxy in front of the same browser take
 * turns of four commands of the mix (all but the element's text), with `between` turns straight to the
 * browser before each, as the command part's other paths; each process's CPU is read from the scheduler
 * (process-cpu.ts threadsCpuNanos) around its own turns and over the whole phase. With PROBE_STRACE=PREFIX
 * each process's system calls over the measured turns go to PREFIX.gridgate and PREFIX.plainNode (strace -c -f;
 * with PROBE_STRACE_FULL=1 every call, timed: strace -f -tt -T).
 *
 *   npx tsx bench/command-turns-probe.ts [turns, default 400] [warm-up commands, default 3000] [between, default 0]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { BENCH_PAGE, PROBE_MIX, type SessionPath } from './command-latency';
import { GridgateServer } from './gridgate-server';
import { threadsCpuNanos } from './process-cpu';
import { startPlainNodeProxy } from './reference-proxies';
import { WebDriverClient } from './webdriver-client';

const turns = Number(process.argv[2] ?? 400);
const warm = Number(process.argv[3] ?? 3000);
const between = Number(process.argv[4] ?? 0);
const PROXIES = ['gridgate', 'plainNode'] as const;

const grid = await GridgateServer.start();
const client = new WebDriverClient();
let stopProxy = async () => {};
try {
  const session = await client.newSession(grid.origin, { browserName: 'chrome' });
  const host = (await client.send(grid.origin, 'GET', `/host/${session}`)).value as {
    address: string;
    browserSessionId: string;
  };
  const proxy = await startPlainNodeProxy(`http://${host.address}`);
  stopProxy = () => proxy.process.stop();
  const browser = { origin: `http://${host.address}`, sessionId: host.browserSessionId };
  const paths: Record<(typeof PROXIES)[number], Omit<SessionPath, 'name'>> = {
    gridgate: { origin: grid.origin, sessionId: session },
    plainNode: { origin: proxy.origin, sessionId: host.browserSessionId },
  };
  const pids = { gridgate: grid.pid, plainNode: proxy.process.pid };
  await client.send(grid.origin, 'POST', `/session/${session}/url`, { url: BENCH_PAGE });
  // As warmRuntimes (command-latency.ts): both proxies run optimized code before anything is counted.
  for (let i = 0; i < warm; i++) {
    for (const { origin, sessionId } of Object.values(paths)) {
      if (i % 2 === 0) await client.send(origin, 'GET', `/session/${sessionId}/timeouts`);
      else await client.send(origin, 'POST', `/session/${sessionId}/timeouts`, { implicit: 0 });
    }
  }
  const mix = async ({ origin, sessionId }: Omit<SessionPath, 'name'>, into: number[]) => {
    for (const [method, suffix, body] of PROBE_MIX) {
      into.push((await client.send(origin, method, `/session/${sessionId}${suffix}`, body)).ms);
    }
  };
  const traces = startTraces(pids);
  await new Promise((resolve) => setTimeout(resolve, traces.length > 0 ? 1500 : 0));
  const turnsCpu = { gridgate: 0, plainNode: 0 };
  const ms = { gridgate: [] as number[], plainNode: [] as number[] };
  const wholeBefore = {
    gridgate: threadsCpuNanos(pids.gridgate),
    plainNode: threadsCpuNanos(pids.plainNode),
  };
  for (let turn = 0; turn < turns; turn++) {
    for (const name of turn % 2 === 0 ? PROXIES : [...PROXIES].reverse()) {
      for (let i = 0; i < between; i++) await mix(browser, []);
      const before = threadsCpuNanos(pids[name]);
      await mix(paths[name], ms[name]);
      turnsCpu[name] += threadsCpuNanos(pids[name]) - before;
    }
  }
  for (const trace of traces) {
    trace.kill('SIGINT');
    await once(trace, 'exit');
  }
  for (const name of PROXIES) {
    const count = ms[name].length;
    const micros = (nanos: number) => (nanos / count / 1e3).toFixed(0);
    const p50 = [...ms[name]].sort((a, b) => a - b)[Math.floor(count / 2)] ?? 0;
    console.log(
      `${name}: CPU per command ${micros(turnsCpu[name])} µs over its turns, ${micros(threadsCpuNanos(pids[name]) - wholeBefore[name])} over the whole phase; p50 ${p50.toFixed(2)} ms (${count} commands)`,
    );
  }
  await client.deleteSession(grid.origin, session);
} finally {
  await stopProxy();
  await grid.stop();
}

/** strace attached to each process for the measured turns, when PROBE_STRACE says where to write. */
function startTraces(pids: Record<string, number>): ChildProcess[] {
  const prefix = process.env.PROBE_STRACE;
  if (!prefix) return [];
  const timed = process.env.PROBE_STRACE_FULL ? ['-tt', '-T'] : ['-c'];
  return Object.entries(pids).map(([name, pid]) =>
    spawn('strace', [...timed, '-f', '-o', `${prefix}.${name}`, '-p', String(pid)], { stdio: 'ignore' }),
  );
}
