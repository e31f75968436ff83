/**
 * Runs web-platform-tests' WebDriver tests (pytest, as wptrunner would) against one remote end, and the
 * test web server (wptserve) their pages come from; outcomes come back per test, from wpt_outcomes.py.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import type { RemoteEnd } from './remote-ends';

export type Outcome = 'passed' | 'failed' | 'skipped' | 'error';

export interface TestResult {
  outcome: Outcome;
  message: string;
  /** Its setup, call and teardown together, as pytest timed them (0 for a file that could not be collected). */
  seconds: number;
  /** The same apart: setup is where the test's session is made (or ended and made anew for other capabilities). */
  phases: Record<TestPhase, number>;
}

export const TEST_PHASES = ['setup', 'call', 'teardown'] as const;
export type TestPhase = (typeof TEST_PHASES)[number];

/** Test id ("tests/new_session/merge.py::test_x[a]") → result. */
export type Results = Map<string, TestResult>;

const HERE = import.meta.dirname;
// wptrunner's own timeout for a wdspec test is 25 s (×3 for slow builds); a hung test must not stall CI.
const TEST_TIMEOUT_S = 90;

/** Test files of a directory the way wptrunner finds them: every .py except helpers, fixtures and support. */
export function testFiles(wpt: string, directory: string): string[] {
  const root = join(wpt, 'webdriver');
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'support' ? [] : walk(path);
      const helper = entry.name === '__init__.py' || entry.name === 'conftest.py';
      return entry.name.endsWith('.py') && !helper ? [relative(root, path)] : [];
    });
  return walk(join(root, 'tests', directory)).sort();
}

/** The test directories of the checkout (each a WebDriver command, or new_session, status …). */
export function testDirectories(wpt: string): string[] {
  return readdirSync(join(wpt, 'webdriver', 'tests'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'support' && !entry.name.startsWith('_'))
    .map((entry) => entry.name)
    .filter((name) => testFiles(wpt, name).length > 0)
    .sort();
}

export interface WebServer {
  configFile: string;
  stop(): Promise<void>;
}

/** wptserve on loopback (scripts/wpt/serve.py); its config goes to `configFile` for the tests to read. */
export async function startWebServer(python: string, wpt: string, configFile: string): Promise<WebServer> {
  const child = spawn(python, [join(HERE, 'serve.py'), configFile, wpt], { stdio: ['pipe', 'pipe', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-2000);
  });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (line === 'ready') resolve();
    });
    child.once('exit', (code) => reject(new Error(`the test web server exited (${code}): ${log}`)));
  });
  return { configFile, stop: () => stopChild(child) };
}

/** Runs the files against the remote end; resolves with every test's outcome (pytest's exit code aside). */
export async function runPytest(options: {
  python: string;
  wpt: string;
  remote: RemoteEnd;
  server: WebServer;
  files: string[];
  outcomesFile: string;
  log: (line: string) => void;
}): Promise<Results> {
  const { python, wpt, remote, server, files, outcomesFile } = options;
  const env = {
    ...process.env,
    PYTHONPATH: [join(wpt, 'tools', 'webdriver'), join(wpt, 'webdriver'), HERE].join(':'),
    PYTHONDONTWRITEBYTECODE: '1',
    WD_HOST: remote.host,
    WD_PORT: String(remote.port),
    WD_CAPABILITIES: JSON.stringify(remote.capabilities),
    WD_SERVER_CONFIG_FILE: server.configFile,
    WPT_OUTCOMES: outcomesFile,
  };
  const args = [
    '-m',
    'pytest',
    '-q',
    '--tb=no',
    '-p',
    'no:cacheprovider',
    '-p',
    'wpt_compat',
    '-p',
    'wpt_outcomes',
    '-o',
    'asyncio_mode=auto',
    `--timeout=${TEST_TIMEOUT_S}`,
    '--continue-on-collection-errors',
    ...files,
  ];
  const child = spawn(python, args, { cwd: join(wpt, 'webdriver'), env, stdio: ['ignore', 'pipe', 'pipe'] });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', options.log);
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', options.log);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  // 0: all passed, 1: some failed; anything else means pytest itself could not run the tests.
  if (code !== 0 && code !== 1) throw new Error(`pytest against ${remote.name} exited with ${code}`);
  return readOutcomes(outcomesFile);
}

function readOutcomes(file: string): Results {
  const results: Results = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const { test, outcome, message, seconds, phases } = JSON.parse(line) as { test: string } & TestResult;
    results.set(test, { outcome, message, seconds, phases });
  }
  return results;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end(); // serve.py serves until its standard input closes
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await gone;
  clearTimeout(timer);
}
