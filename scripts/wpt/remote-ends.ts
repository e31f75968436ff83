/**
 * The two remote ends the W3C tests run against in one run: a bare chromedriver (the reference) and a
 * zero-config gridgate (the built-in local Chromium pool, on a free loopback port), each with the
 * capabilities the tests merge into every new session (WD_CAPABILITIES).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Capabilities } from '../../functions/core/capabilities';
import { parseConfig } from '../../functions/core/config';
import type { Logger } from '../../functions/core/ports';
import { startGrid } from '../../functions/entry/start-grid';
import { chromiumCapabilities } from '../../functions/pools/local/chromium-capabilities';
import { chromiumVersion } from '../../functions/pools/local/ensure-chromium';

export interface RemoteEnd {
  name: 'chromedriver' | 'gridgate';
  host: string;
  port: number;
  capabilities: Capabilities;
  /** The process serving it, where it is not this one (chromedriver's group leader). */
  pid?: number;
  stop(): Promise<void>;
}

const STARTED = /ChromeDriver was started successfully on port (\d+)/;
const STOP_GRACE_MS = 3000;

/** gridgate with no config file, as `npm start` runs it, on a free port instead of 4444. */
export async function startGridgate(logger: Logger): Promise<RemoteEnd> {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  const config = parseConfig({ port: 0, host: '127.0.0.1' }, { builtInBrowserVersion: version });
  const grid = await startGrid(config, randomBytes(32), logger);
  // A grid fills in the browser itself: the tests send nothing of their own.
  return { name: 'gridgate', host: '127.0.0.1', port: grid.port, capabilities: {}, stop: () => grid.close() };
}

/**
 * chromedriver as a client without a grid starts it (`--port=0`, its own process group), told to run
 * Chromium with the flags gridgate's local pool gives it, so both sides drive identically flagged browsers.
 * No --user-data-dir: chromedriver makes a fresh profile for every session, as gridgate does.
 */
export async function startChromedriver(): Promise<RemoteEnd> {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  const pool = parseConfig({}, { builtInBrowserVersion: version }).pools.local;
  if (pool?.kind !== 'local') throw new Error('the built-in config has no local pool');
  const child = spawn(pool.chromedriver, ['--port=0'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const stop = () => stopGroup(child);
  try {
    const port = await readyPort(child);
    const built = chromiumCapabilities(
      pool,
      {},
      { userDataDir: '', runningAsRoot: process.getuid?.() === 0 },
    );
    const options = built['goog:chromeOptions'] as { binary: string; args: string[] };
    const args = options.args.filter((arg) => !arg.startsWith('--user-data-dir'));
    const capabilities = { 'goog:chromeOptions': { binary: options.binary, args } };
    return { name: 'chromedriver', host: '127.0.0.1', port, capabilities, pid: child.pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function readyPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      const match = STARTED.exec(line);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`chromedriver exited (${code}) before it was ready`)));
    child.once('error', reject);
  });
}

/** Ends chromedriver and whatever browsers it left (its whole process group). */
async function stopGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signal(-pid, 'SIGTERM');
  const timer = setTimeout(() => signal(-pid, 'SIGKILL'), STOP_GRACE_MS);
  await gone;
  clearTimeout(timer);
  signal(-pid, 'SIGKILL'); // Chromium outlives a chromedriver that is killed.
}

function signal(pid: number, name: NodeJS.Signals) {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}
