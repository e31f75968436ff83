/** The suite part's results: per worker count, gridgate's wall time over chromedriver's, with its interval. */

import { type MedianInterval, medianInterval } from './stats';
import { differenceLines, type SuiteMeasurement, type SuitePlan, type SuiteRun } from './suite-ratio';
import { suiteTimeLines } from './suite-time';
import type { SampledCpu } from './tree-sampler';

export const SUITE_PLANS: Record<'default' | 'long', SuitePlan> = {
  default: { rounds: 2, workers: [1, 4] },
  long: { rounds: 6, workers: [1, 4] },
};
export const SUITE_DEADLINE_MS = 60 * 60_000;
/** The target: the suite through gridgate within 5 % of the same suite against chromedriver. */
export const SUITE_TARGET = 1.05;

export interface SuiteByWorkers {
  workers: number;
  /** Per-round ratios gridgate ÷ chromedriver of wall time, and CPU time of each side's processes. */
  wallRatio: MedianInterval;
  cpuRatio: MedianInterval;
  seconds: { chromedriver: number[]; gridgate: number[] };
  load1m: number[];
  /** Every round passed as many tests through gridgate as against chromedriver. */
  samePassed: boolean;
  verdict: 'PASS' | 'MISS';
}

export interface SuiteReport {
  files: number;
  tests: number;
  byWorkers: SuiteByWorkers[];
  runs: SuiteRun[];
}

export function suiteReport(measurement: SuiteMeasurement): SuiteReport {
  const workerCounts = [...new Set(measurement.runs.map((run) => run.workers))];
  return {
    files: measurement.files,
    tests: measurement.runs[0]?.tests ?? 0,
    runs: measurement.runs,
    byWorkers: workerCounts.map((workers) => {
      const runs = measurement.runs.filter((run) => run.workers === workers);
      const wallRatio = medianInterval(runs.map((run) => run.seconds.gridgate / run.seconds.chromedriver));
      return {
        workers,
        wallRatio,
        cpuRatio: medianInterval(runs.map((run) => run.cpuSeconds.gridgate / run.cpuSeconds.chromedriver)),
        seconds: {
          chromedriver: runs.map((run) => run.seconds.chromedriver),
          gridgate: runs.map((run) => run.seconds.gridgate),
        },
        load1m: runs.map((run) => run.load1m),
        samePassed: runs.every((run) => run.passed.gridgate === run.passed.chromedriver),
        verdict: wallRatio.median <= SUITE_TARGET ? 'PASS' : 'MISS',
      };
    }),
  };
}

const list = (values: number[], digits = 1) => values.map((value) => value.toFixed(digits)).join(', ');

export function formatSuiteReport(report: SuiteReport): string {
  return [
    `Suite: ${report.tests} W3C WebDriver tests (${report.files} files of web-platform-tests, pytest), through gridgate ÷ against chromedriver, per round:`,
    ...report.byWorkers.flatMap((w) => [
      `  ${w.workers} worker(s): wall time ratio ${w.wallRatio.median.toFixed(3)} (${w.wallRatio.low.toFixed(3)}–${w.wallRatio.high.toFixed(3)}, ${(w.wallRatio.confidence * 100).toFixed(1)} % interval)  target ≤ ${SUITE_TARGET}  ${w.verdict}${w.samePassed ? '' : '  (passed counts differ!)'}`,
      `    seconds chromedriver ${list(w.seconds.chromedriver)}; gridgate ${list(w.seconds.gridgate)}; load ${list(w.load1m)}`,
      `    CPU of each side's processes, sampled (gridgate: its process and all below it; chromedriver: its group) ratio ${w.cpuRatio.median.toFixed(3)} (${w.cpuRatio.low.toFixed(3)}–${w.cpuRatio.high.toFixed(3)})`,
    ]),
    'CPU ms per test by program, each run (sampled once a second; "tree": the total through waiting parents, tree-sampler.ts):',
    ...report.runs.flatMap((run, i) =>
      (['chromedriver', 'gridgate'] as const).map(
        (side) =>
          `  run ${i + 1} (${run.workers} worker(s)) ${side.padEnd(12)} ${perTest(run.cpu[side], run.tests)}`,
      ),
    ),
    "Where gridgate's extra time went, each run (pytest's seconds for each test, suite-time.ts):",
    ...report.runs.flatMap((run, i) =>
      suiteTimeLines(run.time).map((line) => `  run ${i + 1} (${run.workers} worker(s)) ${line}`),
    ),
    ...differingTests(report.runs),
  ].join('\n');
}

/** Every run's tests whose outcomes differ between the sides (none: nothing printed). */
function differingTests(runs: SuiteRun[]): string[] {
  if (runs.every((run) => run.differences.length === 0)) return ['Same outcome for every test in every run.'];
  return [
    'Tests whose outcomes differ:',
    ...runs.flatMap((run, i) =>
      differenceLines(run.differences).map((line) => `  run ${i + 1} (${run.workers} worker(s)) ${line}`),
    ),
  ];
}

/** "sampled 812 (tree 700): chromium 640, chromedriver 41, …", ms per test, the largest first. */
function perTest(cpu: SampledCpu, tests: number): string {
  const ms = (seconds: number) => ((seconds / tests) * 1000).toFixed(1);
  const programs = Object.entries(cpu.byProgram)
    .sort(([, a], [, b]) => b - a)
    .map(([program, seconds]) => `${program} ${ms(seconds)}`);
  return `sampled ${ms(cpu.sampled)} (tree ${ms(cpu.total)}): ${programs.join(', ')}`;
}
