/**
 * Memory at idle (`--only memory`): gridgate as users run it (npm start's command: the production build,
 * plain node, its default worker processes) with one hub pool in front of the fake upstream, started
 * `rounds` times. Each start gives the time from spawn to SERVER_STARTED and the RSS of every process of
 * the server (the primary, each worker) at ready and after `idleMs` without a request: V8 gives back the
 * young generation that start-up grew once its memory reducer runs, some seconds after allocation stops.
 * A bare `node` idling beside it, read at the same moments, shows what the runtime alone holds.
 */
import { readFileSync } from 'node:fs';
import { ensureServerBuild } from '../scripts/server-build.mjs';
import { until } from '../test/support/until';
import { commandLine, descendants } from './process-tree';
import { startGridgateServer } from './proxy-gridgate-server';
import { startFakeUpstream } from './proxy-nginx';
import { startServerProcess } from './proxy-processes';
import type { Verdict } from './report';
import { summarize } from './stats';

export interface MemoryPlan {
  rounds: number;
  idleMs: number;
}

export const MEMORY_PLANS: Record<'default' | 'long', MemoryPlan> = {
  default: { rounds: 2, idleMs: 30_000 },
  long: { rounds: 4, idleMs: 30_000 },
};

export const MEMORY_TARGETS = {
  /** RSS of each process of the server at idle (the issue's figure). */
  maxIdleRssBytes: 60 * 1024 * 1024,
} as const;

export interface MemoryRound {
  readyMs: number;
  /** Bytes, at SERVER_STARTED and after the idle wait. */
  primary: { ready: number; idle: number };
  workers: { ready: number; idle: number }[];
  bareNode: { ready: number; idle: number };
}

export interface MemoryReport {
  plan: MemoryPlan;
  rounds: MemoryRound[];
  /** The largest idle RSS of any process of the server, median over rounds. */
  idleRssBytes: number;
  verdict: Verdict;
}

const rssOf = (pid: number) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024;

export async function measureMemory(plan: MemoryPlan, log: (line: string) => void): Promise<MemoryReport> {
  // Built first, so that no start includes the build (or esbuild among its processes).
  await ensureServerBuild();
  const upstream = await startFakeUpstream();
  const rounds: MemoryRound[] = [];
  try {
    for (let round = 1; round <= plan.rounds; round++) {
      log(`memory: start ${round} of ${plan.rounds}, then ${plan.idleMs / 1000} s idle…`);
      rounds.push(await measureOneStart(upstream.origin, plan.idleMs));
    }
  } finally {
    await upstream.process.stop();
  }
  const largest = rounds.map((round) => Math.max(round.primary.idle, ...round.workers.map((w) => w.idle)));
  const idleRssBytes = summarize(largest).median;
  return {
    plan,
    rounds,
    idleRssBytes,
    verdict: idleRssBytes < MEMORY_TARGETS.maxIdleRssBytes ? 'PASS' : 'MISS',
  };
}

async function measureOneStart(upstream: string, idleMs: number): Promise<MemoryRound> {
  const bare = startServerProcess(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], 'SIGTERM');
  const started = performance.now();
  const grid = await startGridgateServer(upstream);
  const readyMs = performance.now() - started;
  try {
    const primary = grid.process.pid;
    // Its worker processes (node, as cluster forks them; not esbuild) may still be starting.
    const listening = () => grid.process.output().match(/"event":"WORKER_STARTED"/g)?.length ?? 0;
    await until(() => listening() >= grid.workers, 'its workers listen');
    const workers = descendants(primary).filter((pid) => commandLine(pid)[0] === process.execPath);
    const read = () => ({ primary: rssOf(primary), workers: workers.map(rssOf), bare: rssOf(bare.pid) });
    const ready = read();
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const idle = read();
    return {
      readyMs,
      primary: { ready: ready.primary, idle: idle.primary },
      workers: workers.map((_, i) => ({
        ready: ready.workers[i] ?? Number.NaN,
        idle: idle.workers[i] ?? Number.NaN,
      })),
      bareNode: { ready: ready.bare, idle: idle.bare },
    };
  } finally {
    await Promise.all([grid.process.stop(), bare.stop()]);
  }
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export function formatMemoryReport(report: MemoryReport): string {
  const lines = [
    `Memory at idle: npm start (production build, default workers), ${report.rounds.length} starts, RSS MiB at ready → after ${report.plan.idleMs / 1000} s idle`,
    ...report.rounds.map(
      (round, i) =>
        `  start ${i + 1}: ready in ${(round.readyMs / 1000).toFixed(2)} s; primary ${mib(round.primary.ready)} → ${mib(round.primary.idle)}; ` +
        `workers ${round.workers.map((w) => `${mib(w.ready)} → ${mib(w.idle)}`).join(', ')}; bare node ${mib(round.bareNode.ready)} → ${mib(round.bareNode.idle)}`,
    ),
    `=> largest process at idle ${mib(report.idleRssBytes)} MiB  target < ${mib(MEMORY_TARGETS.maxIdleRssBytes)} MiB  ${report.verdict}`,
  ];
  return lines.join('\n');
}
