/**
 * The baseline: a bare chromedriver started the way a client without a grid starts one
 * (`chromedriver --port=0`, in its own process group), asked for Chromium with the capabilities gridgate's
 * local pool would send but for the profile, so both paths drive identically flagged browsers. Like a client
 * without a grid it names no profile: chromedriver makes a fresh one for every session and opens `data:,` in
 * it (given one, it opens nothing and Chromium starts on its New Tab page), in a temporary folder of its own
 * that goes when it stops. `urlBase` serves WebDriver under a prefix (`--url-base=/wd/hub`): ggr calls every host
 * there, so the chromedriver behind ggr is this one with that option.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Capabilities } from '../functions/core/capabilities';
import type { PoolConfig } from '../functions/core/config';
import { chromiumCapabilities } from '../functions/pools/local/chromium-capabilities';
import { groupGone, signalGroup } from './process-tree';
import { track } from './teardown';

export type LocalPool = Extract<PoolConfig, { kind: 'local' }>;

export interface ChromedriverOptions {
  /** The path WebDriver is served under (chromedriver's --url-base), e.g. /wd/hub; none by default. */
  urlBase?: string;
}

const STARTED = /ChromeDriver was started successfully on port (\d+)/;
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 2000;

export class DirectChromedriver {
  private constructor(
    readonly pid: number,
    readonly origin: string,
    /** The new-session capabilities, as gridgate's local pool would build them. */
    readonly capabilities: Capabilities,
    /** Stops chromedriver and, with its process group, Chromium; then removes the profile. */
    readonly stop: () => Promise<void>,
  ) {}

  static async start(pool: LocalPool, options: ChromedriverOptions = {}): Promise<DirectChromedriver> {
    // chromedriver makes each session's profile in TMPDIR: this folder, so what a killed one leaves goes too.
    const temporary = await mkdtemp(join(tmpdir(), 'gridgate-bench-chromedriver-'));
    const urlBase = options.urlBase === undefined ? [] : [`--url-base=${options.urlBase}`];
    const child = spawn(pool.chromedriver, ['--port=0', ...urlBase], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TMPDIR: temporary },
    });
    const pid = child.pid;
    if (pid === undefined) {
      await rm(temporary, { recursive: true, force: true });
      throw new Error(`cannot start ${pool.chromedriver}`);
    }
    // Registered before it is ready, so an interrupted start is stopped too.
    const untrack = track({
      stop: () => stop(),
      kill: () => {
        signalGroup(pid, 'SIGKILL');
        rmSync(temporary, { recursive: true, force: true });
      },
    });
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= stopGroup(pid, temporary).finally(untrack);
      return stopping;
    };
    try {
      const port = await readyPort(child);
      return new DirectChromedriver(pid, `http://127.0.0.1:${port}`, withoutProfile(pool), stop);
    } catch (error) {
      await stop();
      throw error;
    }
  }
}

/** The local pool's capabilities for chromedriver, with no --user-data-dir: chromedriver makes the profile. */
function withoutProfile(pool: LocalPool): Capabilities {
  const built = chromiumCapabilities(
    pool,
    { browserName: 'chrome' },
    { userDataDir: '', runningAsRoot: process.getuid?.() === 0 },
  );
  const options = built['goog:chromeOptions'] as { args: string[] };
  const args = options.args.filter((arg) => !arg.startsWith('--user-data-dir='));
  return { ...built, 'goog:chromeOptions': { ...options, args } };
}

async function stopGroup(pid: number, temporary: string): Promise<void> {
  signalGroup(pid, 'SIGTERM');
  // Chromium outlives a chromedriver that is killed, so whatever is left of the group goes too.
  if (!(await groupGone(pid, STOP_GRACE_MS))) signalGroup(pid, 'SIGKILL');
  await groupGone(pid, STOP_GRACE_MS);
  await rm(temporary, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
}

function readyPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const onExit = (code: number | null) =>
      finish(new Error(`chromedriver exited (${code}) before it was ready`));
    const finish = (result: number | Error) => {
      clearTimeout(timer);
      lines.close();
      child.off('exit', onExit);
      child.off('error', finish);
      // Its output is not needed any more, but the pipes must keep draining.
      child.stdout?.resume();
      if (typeof result === 'number') resolve(result);
      else reject(result);
    };
    const timer = setTimeout(() => finish(new Error('chromedriver did not start in time')), READY_TIMEOUT_MS);
    lines.on('line', (line) => {
      const port = STARTED.exec(line)?.[1];
      if (port) finish(Number(port));
    });
    child.stderr?.resume();
    child.once('exit', onExit);
    child.once('error', finish);
  });
}
