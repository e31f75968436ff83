/**
 * How much to measure: the default run stays under ~3 minutes on a 2-core machine, even a loaded
 * one (each part stops after its time budget, once it has its minimum of rounds); `--long` (or
 * BENCH_LONG=1) measures about three times as much. The only place the benchmark reads argv and env.
 */

/** Rounds run up to `rounds`; after `budgetMs` no new round starts once `minRounds` are done. */
export interface RoundPlan {
  rounds: number;
  minRounds: number;
  budgetMs: number;
}

export interface BenchOptions {
  preset: 'default' | 'long';
  commands: RoundPlan & {
    /** Turns per round; a turn is one five-command mix on each path (two on direct, see command-latency.ts). */
    iterations: number;
    /** Unrecorded iterations per path before the first round (connections, Chromium caches). */
    warmup: number;
    /**
     * Fast commands (Get/Set Timeouts, which chromedriver answers without the browser) sent through
     * every path before the warm-up turns, so the Node paths run the optimized code a long-running
     * server runs (see command-latency.ts).
     */
    runtimeWarmup: number;
  };
  newSession: RoundPlan & {
    /** Unrecorded sessions per path before the first round (cold binaries and disk caches). */
    warmup: number;
    /** Browsers gridgate keeps warm (`warm`): each gridgate session first waits until that many are ready. */
    warm: number;
  };
  /** Recording's cost: plain and recorded sessions in turns, each watched for `windowMs`. */
  recording: { rounds: number; windowMs: number };
  /** Console and network capture's cost: plain and capturing sessions in alternating rounds of `commands` each. */
  capture: { rounds: number; commands: number };
  /** Which parts to run. */
  only: 'all' | 'commands' | 'new-session' | 'recording' | 'capture';
  /** gridgate's local pool keeps this many browsers started ahead of demand (`warm`); 0: none. */
  warm: number;
  /** Directory for the gridgate process's V8 CPU profile (node --cpu-prof), or undefined. */
  cpuProfDir: string | undefined;
  /** The whole run is abandoned (and everything stopped) after this long. */
  deadlineMs: number;
}

const PRESETS = {
  default: {
    commands: { rounds: 10, minRounds: 4, budgetMs: 60_000, iterations: 30, warmup: 20, runtimeWarmup: 3000 },
    newSession: { rounds: 10, minRounds: 4, budgetMs: 50_000, warmup: 1 },
    recording: { rounds: 2, windowMs: 15_000 },
    capture: { rounds: 4, commands: 250 },
    deadlineMs: 15 * 60_000,
  },
  long: {
    commands: {
      rounds: 30,
      minRounds: 30,
      budgetMs: 15 * 60_000,
      iterations: 30,
      warmup: 20,
      runtimeWarmup: 3000,
    },
    newSession: { rounds: 30, minRounds: 30, budgetMs: 15 * 60_000, warmup: 1 },
    recording: { rounds: 4, windowMs: 30_000 },
    capture: { rounds: 8, commands: 500 },
    deadlineMs: 40 * 60_000,
  },
} as const;

const USAGE = `usage: npm run bench -- [--long] [--only commands|new-session|recording|capture] [--warm N] [--cpu-prof DIR]
  --long         about three times as many samples (also BENCH_LONG=1)
  --only PART    run one part: commands, new-session, recording or capture (or proxy, scale, memory, suite)
  --warm N       gridgate's pool keeps N browsers started ahead of demand (also BENCH_WARM=N)
  --cpu-prof DIR write a V8 CPU profile of the gridgate process into DIR (also BENCH_CPU_PROF=DIR)`;

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  let long = env.BENCH_LONG === '1' || env.BENCH_LONG === 'true';
  let only: BenchOptions['only'] = 'all';
  let cpuProfDir = env.BENCH_CPU_PROF || undefined;
  let warm = warmCount(env.BENCH_WARM ?? '0');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--long') long = true;
    else if (arg === '--only') {
      const part = argv[++i];
      if (part !== 'commands' && part !== 'new-session' && part !== 'recording' && part !== 'capture')
        throw new Error(USAGE);
      only = part;
    } else if (arg === '--warm') warm = warmCount(argv[++i]);
    else if (arg === '--cpu-prof') {
      cpuProfDir = argv[++i];
      if (!cpuProfDir) throw new Error(USAGE);
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  const preset = long ? 'long' : 'default';
  const chosen = PRESETS[preset];
  return {
    preset,
    commands: { ...chosen.commands },
    newSession: { ...chosen.newSession, warm },
    recording: { ...chosen.recording },
    capture: { ...chosen.capture },
    only,
    warm,
    cpuProfDir,
    deadlineMs: chosen.deadlineMs,
  };
}

function warmCount(text: string | undefined): number {
  const count = Number(text);
  if (text === undefined || text === '' || !Number.isInteger(count) || count < 0)
    throw new Error(`--warm needs a whole number ≥ 0, not ${text ?? 'nothing'}\n${USAGE}`);
  return count;
}
