/** What the figures were measured on, recorded with them: they mean little without it. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

export interface Environment {
  node: string;
  chromium: string;
  chromedriver: string;
  cpus: number;
  cpuModel: string;
  loadAverage1m: number;
  /** The same at the end of the run (other work on the machine moves the figures). */
  loadAverage1mAtEnd?: number;
  /** Chromium processes that were running before the benchmark started (someone else's: they add noise). */
  foreignChromiumProcesses: number;
  gitCommit: string;
  gitDirty: boolean;
}

function output(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 15_000,
    }).trim();
  } catch {
    return '';
  }
}

export const loadNow = (): number => loadavg()[0] ?? 0;

/** CPU time so far in jiffies from /proc/stat's first line: busy (ours: user, nice, system, irq, softirq) and all. */
function cpuJiffies(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return {
    busy: user + nice + system + irq + softirq,
    total: user + nice + system + idle + iowait + irq + softirq + steal,
  };
}

/** The share of the machine's CPU time spent busy over the next `ms`. */
export async function busyShare(ms: number): Promise<number> {
  const before = cpuJiffies();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = cpuJiffies();
  const total = after.total - before.total;
  return total > 0 ? (after.busy - before.busy) / total : 0;
}

const QUIET_SHARE = 0.15;
const QUIET_WINDOW_MS = 2000;

/**
 * Waits until the machine is quiet now (busy under 15 % of a 2-s window), at most `maxMs`; resolves with the
 * last window's busy share. The 1-minute load average lags: after a heavy run it stays high for minutes while
 * the machine may already be idle, and the work a heavy run leaves behind (processes ending, folders removed)
 * would otherwise land on whichever timed run comes next.
 */
export async function settle(maxMs: number): Promise<number> {
  const deadline = performance.now() + maxMs;
  let share = await busyShare(QUIET_WINDOW_MS);
  while (share >= QUIET_SHARE && performance.now() < deadline) share = await busyShare(QUIET_WINDOW_MS);
  return share;
}

export function describeEnvironment(chromedriver: string): Omit<Environment, 'chromium'> {
  return {
    node: process.version,
    chromedriver: /ChromeDriver (\S+)/.exec(output(chromedriver, ['--version']))?.[1] ?? 'unknown',
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAverage1m: loadNow(),
    foreignChromiumProcesses: output('pgrep', ['-x', 'chromium']).split('\n').filter(Boolean).length,
    gitCommit: output('git', ['rev-parse', '--short', 'HEAD']) || 'unknown',
    gitDirty: output('git', ['status', '--porcelain', '--', 'functions']) !== '',
  };
}
