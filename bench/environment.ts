/** What the figures were measured on, recorded with them: they mean little without it. */
import { execFileSync } from 'node:child_process';
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
