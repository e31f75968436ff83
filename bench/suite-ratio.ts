/**
 * A real suite's wall time through gridgate against the same suite against chromedriver: W3C WebDriver
 * tests (web-platform-tests, ../shared/wpt) run by pytest, as `npm run wpt` runs them, with one worker and
 * with four (the files dealt round-robin to that many pytest processes at once, each with its own browser).
 * Rounds alternate which remote end goes first; every round runs both, so the per-round ratio compares two
 * runs a few minutes apart at most. Each run gets a fresh remote end, started and stopped outside the timed
 * part: some tests leave a session behind, which a gridgate keeps (and counts against its pool's limit)
 * until its idle timeout, so a run after another would start with fewer free slots. Each run's outcomes must be the same on both sides (a failing path is
 * not a fast one), and the CPU time of both remote ends' process trees is read around each run.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compare, type Difference } from '../scripts/wpt/compare';
import {
  type Results,
  runPytest,
  startWebServer,
  testFiles,
  type WebServer,
} from '../scripts/wpt/pytest-run';
import { type RemoteEnd, startChromedriver } from '../scripts/wpt/remote-ends';
import { loadNow, settle } from './environment';
import { GridgateServer } from './gridgate-server';
import { signalGroup } from './process-tree';
import { type SuiteTime, suiteTime, suiteTimeLines } from './suite-time';
import { track } from './teardown';
import { type SampledCpu, TreeSampler } from './tree-sampler';

const REPO = resolve(import.meta.dirname, '..');
export const WPT = resolve(REPO, '../shared/wpt');
const PYTHON = '/usr/bin/python3';
// A session's browser lives seconds: one reading a second sees most of each process's life.
const CPU_SAMPLE_MS = 1000;
// How long a run waits for the machine to be quiet before it starts (environment.ts settle).
const SETTLE_MAX_MS = 120_000;

/**
 * Commands a suite sends most (navigate, find, read, click, type, script), none of gridgate's own
 * answers: what is measured is the command path, plus each worker's few new sessions.
 */
export const SUITE_DIRECTORIES = [
  'navigate_to',
  'get_title',
  'get_current_url',
  'back',
  'refresh',
  'find_element',
  'find_elements',
  'get_element_text',
  'get_element_attribute',
  'get_element_property',
  'is_element_selected',
  'get_page_source',
];

export interface SuitePlan {
  rounds: number;
  workers: number[];
}

export interface SuiteRun {
  /** Remote end → seconds, CPU seconds of its own processes (gridgate: its process, all below it). */
  seconds: Record<RemoteEnd['name'], number>;
  cpuSeconds: Record<RemoteEnd['name'], number>;
  /** The same CPU by program, as sampled (tree-sampler.ts). */
  cpu: Record<RemoteEnd['name'], SampledCpu>;
  /** The machine's busy share in the 2 s before each side's timed run began (environment.ts settle). */
  busyBefore: Record<RemoteEnd['name'], number>;
  tests: number;
  passed: Record<RemoteEnd['name'], number>;
  /** Every test whose outcome differs between the sides, with each side's outcome and message. */
  differences: Difference[];
  /** Where gridgate's extra time went, by the tests' own seconds. */
  time: SuiteTime;
  workers: number;
  first: RemoteEnd['name'];
  load1m: number;
}

export interface SuiteMeasurement {
  files: number;
  runs: SuiteRun[];
}

/** gridgate as the other parts run it (gridgate-server.ts: its own process, the built-in local pool). */
async function startGridgateProcess(): Promise<RemoteEnd> {
  const grid = await GridgateServer.start();
  const { hostname, port } = new URL(grid.origin);
  // A grid fills in the browser itself: the tests send nothing of their own.
  return {
    name: 'gridgate',
    host: hostname,
    port: Number(port),
    capabilities: {},
    pid: grid.pid,
    stop: () => grid.stop(),
  };
}

async function runSuite(
  start: () => Promise<RemoteEnd>,
  server: WebServer,
  files: string[],
  workers: number,
  work: string,
): Promise<{ seconds: number; cpu: SampledCpu; results: Results; busyBefore: number }> {
  const shards = Array.from({ length: workers }, (_, w) => files.filter((_, i) => i % workers === w));
  const remote = await start();
  const untrack = track({
    stop: () => remote.stop(),
    kill: () => remote.pid && signalGroup(remote.pid, 'SIGKILL'),
  });
  try {
    // Each run starts on a quiet machine, whatever the run before it left behind.
    const busyBefore = await settle(SETTLE_MAX_MS);
    return { ...(await timedRun(remote, server, shards, work)), busyBefore };
  } finally {
    await remote.stop();
    untrack();
  }
}

async function timedRun(
  remote: RemoteEnd,
  server: WebServer,
  shards: string[][],
  work: string,
): Promise<{ seconds: number; cpu: SampledCpu; results: Results }> {
  if (remote.pid === undefined) throw new Error(`no process to read ${remote.name}'s CPU from`);
  const sampler = new TreeSampler(remote.pid, CPU_SAMPLE_MS);
  const started = performance.now();
  const parts = await Promise.all(
    shards.map((shard, w) =>
      runPytest({
        python: PYTHON,
        wpt: WPT,
        remote,
        server,
        files: shard,
        outcomesFile: join(work, `${remote.name}-${w}.jsonl`),
        log: () => {},
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  return { seconds, cpu: sampler.stop(), results: new Map(parts.flatMap((part) => [...part])) };
}

const percent = (share: number) => `${(share * 100).toFixed(0)} %`;

/** One line per side for each test whose outcome differs: which test, and what each side said. */
export function differenceLines(differences: Difference[]): string[] {
  return differences.flatMap((d) => [
    `differs [${d.kind}]: ${d.test}`,
    `  chromedriver: ${d.chromedriver}`,
    `  gridgate:     ${d.gridgate}`,
  ]);
}

const passedCount = (results: Results) => [...results.values()].filter((r) => r.outcome === 'passed').length;

export async function measureSuite(plan: SuitePlan, log: (line: string) => void): Promise<SuiteMeasurement> {
  const files = SUITE_DIRECTORIES.flatMap((directory) => testFiles(WPT, directory));
  const work = join(REPO, '.tmp', 'bench-suite');
  mkdirSync(work, { recursive: true });
  const server = await startWebServer(PYTHON, WPT, join(work, 'server-config.json'));
  const remotes = { chromedriver: startChromedriver, gridgate: startGridgateProcess };
  const runs: SuiteRun[] = [];
  try {
    for (let round = 0; round < plan.rounds; round++) {
      for (const workers of plan.workers) {
        const order: RemoteEnd['name'][] =
          round % 2 === 0 ? ['chromedriver', 'gridgate'] : ['gridgate', 'chromedriver'];
        const load1m = loadNow();
        const measured = {} as Record<RemoteEnd['name'], Awaited<ReturnType<typeof runSuite>>>;
        for (const name of order)
          measured[name] = await runSuite(remotes[name], server, files, workers, work);
        const run: SuiteRun = {
          seconds: { chromedriver: measured.chromedriver.seconds, gridgate: measured.gridgate.seconds },
          // As sampled: the tree's total misses every Chromium process gridgate's stop kills (its parent dies
          // with it, init reaps it), where a bare chromedriver's browser is mostly reaped by chromedriver;
          // sampling misses each process's last second on both sides alike (tree-sampler.ts).
          cpuSeconds: {
            chromedriver: measured.chromedriver.cpu.sampled,
            gridgate: measured.gridgate.cpu.sampled,
          },
          cpu: { chromedriver: measured.chromedriver.cpu, gridgate: measured.gridgate.cpu },
          busyBefore: {
            chromedriver: measured.chromedriver.busyBefore,
            gridgate: measured.gridgate.busyBefore,
          },
          tests: measured.chromedriver.results.size,
          passed: {
            chromedriver: passedCount(measured.chromedriver.results),
            gridgate: passedCount(measured.gridgate.results),
          },
          differences: compare(measured.chromedriver.results, measured.gridgate.results).differences,
          time: suiteTime(measured.chromedriver.results, measured.gridgate.results),
          workers,
          first: order[0] as RemoteEnd['name'],
          load1m,
        };
        runs.push(run);
        log(
          `  round ${round + 1}/${plan.rounds}, ${workers} worker(s): chromedriver ${run.seconds.chromedriver.toFixed(1)} s, gridgate ${run.seconds.gridgate.toFixed(1)} s (${(run.seconds.gridgate / run.seconds.chromedriver).toFixed(3)}); passed ${run.passed.chromedriver}/${run.passed.gridgate} of ${run.tests}; load ${load1m.toFixed(1)}; busy before each ${percent(run.busyBefore.chromedriver)} / ${percent(run.busyBefore.gridgate)}`,
        );
        for (const line of [...suiteTimeLines(run.time), ...differenceLines(run.differences)])
          log(`    ${line}`);
      }
    }
  } finally {
    await server.stop();
  }
  return { files: files.length, runs };
}
