/** Turns the measurements into results: summaries per path, ratios against the baseline, verdicts. */
import type { FlagComparison } from './chromium-flags';
import type { CommandCpu } from './command-cpu';
import {
  COMMANDS,
  type CommandLatencyPlan,
  type CommandLatencyRun,
  type CommandName,
  measuredPaths,
  type PerCommandPath,
} from './command-latency';
import type { NewSessionPlan, NewSessionRun, SessionCpu } from './new-session-latency';
import { type MedianInterval, medianInterval, type Summary, summarize } from './stats';

/** The targets: gridgate's median over the direct median (a suite's wall time is held to the same 1.05). */
export const TARGETS = {
  commandMedianRatio: 1.05,
  newSessionMedianRatio: 1.05,
  /** With chromedrivers started ahead of demand (`--warm N`). */
  newSessionWarmMedianRatio: 0.7,
} as const;

export type Verdict = 'PASS' | 'MISS';

/** A subject path against a baseline path: subject ÷ baseline, and the difference of the medians. */
export interface Ratios {
  median: number;
  p90: number;
  p99: number;
  addedMedianMs: number;
}

export function ratios(baseline: Summary, subject: Summary): Ratios {
  return {
    median: subject.median / baseline.median,
    p90: subject.p90 / baseline.p90,
    p99: subject.p99 / baseline.p99,
    addedMedianMs: subject.median - baseline.median,
  };
}

const verdict = (ratio: number, target: number): Verdict => (ratio <= target ? 'PASS' : 'MISS');

export interface CommandReport {
  plan: CommandLatencyPlan;
  /** Rounds actually run (a loaded machine may cut the default run short, see options.ts). */
  roundsRun: number;
  /** All commands of the mix together, per path. */
  paths: PerCommandPath<Summary>;
  /** The ratio: gridgate against a bare chromedriver with its own, identically flagged browser. */
  ratio: Ratios;
  verdict: Verdict;
  /** gridgate against the chromedriver behind it: the same browser, without gridgate in between. */
  sameBrowserRatio: Ratios;
  sameBrowserVerdict: Verdict;
  /** The two browsers, both straight to chromedriver: how much two identical browsers differ. */
  browserToBrowserRatio: Ratios;
  /**
   * The reference proxies in front of gridgate's browser, against direct (comparable with the issue's
   * ratio), and gridgate against the plain Node proxy: its own cost above what any Node proxy pays.
   */
  reference: { nginx: Ratios; plainNode: Ratios; gridgateOverPlainNode: Ratios };
  /** ggr, the router gridgate replaces, against direct, and gridgate against it; or why it was not measured. */
  ggr: { overDirect: Ratios; gridgateOverGgr: Ratios } | { skipped: string };
  perCommand: Record<CommandName, { direct: Summary; gridgate: Summary; ratio: Ratios }>;
  /** Each round's gridgate median ÷ its direct and same-browser medians: how much the ratios move. */
  roundRatios: { direct: number[]; sameBrowser: number[] };
  /** CPU time (user + system) the gridgate process spent per proxied command, in µs. */
  gridgateCpuMicrosPerCommand: number;
  /** CPU seconds per 10,000 commands of each process on the paths (command-cpu.ts). */
  cpuPer10k: CommandCpu;
  flags: FlagComparison;
  /** Whether ggr's browser runs with the direct one's flags (when ggr was measured). */
  ggrFlags?: { identical: boolean; direct: string[]; ggr: string[] };
}

/** What the command benchmark learnt about ggr's path: its browser's flags, or why there is none. */
export type GgrCommandPath = { flags: NonNullable<CommandReport['ggrFlags']> } | { skipped: string };

export function commandReport(
  run: CommandLatencyRun,
  plan: CommandLatencyPlan,
  flags: FlagComparison,
  gridgateCpuMicros: number,
  cpuPer10k: CommandCpu,
  ggrPath: GgrCommandPath,
): CommandReport {
  const paths = Object.fromEntries(
    measuredPaths(run.samples).map((name) => [
      name,
      summarize(COMMANDS.flatMap((command) => run.samples[name]?.[command] ?? [])),
    ]),
  ) as PerCommandPath<Summary>;
  const ratio = ratios(paths.direct, paths.gridgate);
  const sameBrowserRatio = ratios(paths.sameBrowser, paths.gridgate);
  const perCommand = Object.fromEntries(
    COMMANDS.map((command) => {
      const direct = summarize(run.samples.direct[command]);
      const gridgate = summarize(run.samples.gridgate[command]);
      return [command, { direct, gridgate, ratio: ratios(direct, gridgate) }];
    }),
  ) as CommandReport['perCommand'];
  return {
    plan,
    roundsRun: run.rounds.length,
    paths,
    ratio,
    verdict: verdict(ratio.median, TARGETS.commandMedianRatio),
    sameBrowserRatio,
    sameBrowserVerdict: verdict(sameBrowserRatio.median, TARGETS.commandMedianRatio),
    browserToBrowserRatio: ratios(paths.direct, paths.sameBrowser),
    reference: {
      nginx: ratios(paths.direct, paths.nginx),
      plainNode: ratios(paths.direct, paths.plainNode),
      gridgateOverPlainNode: ratios(paths.plainNode, paths.gridgate),
    },
    ggr:
      paths.ggr === undefined
        ? { skipped: 'skipped' in ggrPath ? ggrPath.skipped : 'no ggr session' }
        : { overDirect: ratios(paths.direct, paths.ggr), gridgateOverGgr: ratios(paths.ggr, paths.gridgate) },
    perCommand,
    roundRatios: {
      direct: run.rounds.map((round) => round.gridgate / round.direct),
      sameBrowser: run.rounds.map((round) => round.gridgate / round.sameBrowser),
    },
    gridgateCpuMicrosPerCommand: gridgateCpuMicros / run.sent,
    cpuPer10k,
    flags,
    ...('flags' in ggrPath ? { ggrFlags: ggrPath.flags } : {}),
  };
}

export interface NewSessionReport {
  plan: NewSessionPlan;
  /** Chromedrivers gridgate kept warm; the target depends on it. */
  warm: number;
  target: number;
  roundsRun: number;
  paths: { direct: Summary; gridgate: Summary };
  ratio: Ratios;
  /** The per-round ratios gridgate ÷ direct: their median and a confidence interval for it. */
  roundRatio: MedianInterval;
  verdict: Verdict;
  rounds: NewSessionRun['rounds'];
  /** CPU seconds per new session of each path's processes, up to the answer and with the aftermath. */
  cpu: Record<'direct' | 'gridgate', PathSessionCpu> & { ggr?: PathSessionCpu };
  /**
   * ggr in front of its own chromedriver: its latency (median with a confidence interval), gridgate against
   * it (ratio of medians, and the per-round ratios' median and interval); or why it was not measured.
   */
  ggr: GgrNewSession | { skipped: string };
}

export interface GgrNewSession {
  summary: Summary;
  median: MedianInterval;
  gridgateOverGgr: Ratios;
  roundRatio: MedianInterval;
}

export interface PathSessionCpu {
  toAnswer: MedianInterval;
  withAftermath: MedianInterval;
  /** Mean CPU seconds per session by program (means add up to the mean total, medians would not). */
  byProgram: { toAnswer: Record<string, number>; withAftermath: Record<string, number> };
}

/** The mean per session of each program's CPU seconds. */
function meanByProgram(samples: Record<string, number>[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const sample of samples)
    for (const [program, seconds] of Object.entries(sample)) total[program] = (total[program] ?? 0) + seconds;
  return Object.fromEntries(
    Object.entries(total).map(([program, seconds]) => [program, seconds / samples.length]),
  );
}

const sessionCpu = (samples: SessionCpu[]): PathSessionCpu => ({
  toAnswer: medianInterval(samples.map((s) => s.toAnswer)),
  withAftermath: medianInterval(samples.map((s) => s.withAftermath)),
  byProgram: {
    toAnswer: meanByProgram(samples.map((s) => s.byProgram.toAnswer)),
    withAftermath: meanByProgram(samples.map((s) => s.byProgram.withAftermath)),
  },
});

export function newSessionReport(
  run: NewSessionRun,
  plan: NewSessionPlan,
  warm = 0,
  ggrSkipped = 'not started',
): NewSessionReport {
  const paths = { direct: summarize(run.samples.direct), gridgate: summarize(run.samples.gridgate) };
  const ratio = ratios(paths.direct, paths.gridgate);
  const target = warm > 0 ? TARGETS.newSessionWarmMedianRatio : TARGETS.newSessionMedianRatio;
  return {
    plan,
    warm,
    target,
    roundsRun: run.rounds.length,
    paths,
    ratio,
    roundRatio: medianInterval(run.rounds.map((round) => round.ms.gridgate / round.ms.direct)),
    verdict: verdict(ratio.median, target),
    rounds: run.rounds,
    cpu: {
      direct: sessionCpu(run.cpu.direct),
      gridgate: sessionCpu(run.cpu.gridgate),
      ...(run.cpu.ggr && { ggr: sessionCpu(run.cpu.ggr) }),
    },
    ggr: run.samples.ggr ? ggrNewSession(run, run.samples.ggr, paths.gridgate) : { skipped: ggrSkipped },
  };
}

function ggrNewSession(run: NewSessionRun, samples: number[], gridgate: Summary): GgrNewSession {
  const summary = summarize(samples);
  return {
    summary,
    median: medianInterval(samples),
    gridgateOverGgr: ratios(summary, gridgate),
    roundRatio: medianInterval(run.rounds.map((round) => round.ms.gridgate / (round.ms.ggr as number))),
  };
}
