/**
 * Launcher for local pools: one chromedriver child per session, in its own process group so that
 * stopping it also stops Chromium and every helper process Chromium started, then the profile goes.
 * Pools with `warm` > 0 take a chromedriver started ahead of time (WarmChromedrivers) when one is ready.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PoolConfig } from '../../core/config';
import type { LaunchedBrowser, Launcher, LaunchRequest } from '../../core/ports';
import { chromiumCapabilities } from './chromium-capabilities';
import { type ReadyDriver, WarmChromedrivers } from './warm-chromedrivers';

/** Set in the environment of every chromedriver (and so Chromium) gridgate starts. */
export const LAUNCHED_BY_ENV = 'GRIDGATE_LAUNCHED_BY';
/** Profile directories are named after the gridgate process that owns them: gridgate-chromium-<pid>-…. */
export const PROFILE_PREFIX = 'gridgate-chromium-';
const STARTED = /ChromeDriver was started successfully on port (\d+)/;
// chromedriver gets this long to end on SIGTERM before its whole group is killed; kept short because
// shutdown must finish before a supervisor's own kill deadline (often 3 s after SIGTERM).
const STOP_GRACE_MS = 500;
const GROUP_EXIT_WAIT_MS = 2000;

interface RunningDriver {
  child: ChildProcess;
  userDataDir: string;
  exited: Promise<void>;
  stopping: boolean;
  /** Started ahead of demand and not yet any session's: its exit is no session's browser exiting. */
  warm: boolean;
}

export interface ChromedriverLauncherOptions {
  /** Called when a chromedriver ends without being stopped (a crash, or killed from outside). */
  onUnexpectedExit?: (handle: string, code: number | null, signal: NodeJS.Signals | null) => void;
}

export class ChromedriverLauncher implements Launcher {
  private readonly drivers = new Map<string, RunningDriver>();
  private readonly warm = new WarmChromedrivers({
    spawn: (chromedriver, signal) => this.spawnDriver(chromedriver, signal, true),
    alive: (handle) => this.alive(handle),
    claim: (handle) => {
      const driver = this.drivers.get(handle);
      if (!driver || !this.alive(handle)) return false;
      driver.warm = false;
      return true;
    },
    stop: (handle) => this.stop(handle),
  });

  /** Set by stopAll (shutdown): a chromedriver started after it would outlive gridgate. */
  private stopped = false;

  constructor(private readonly options: ChromedriverLauncherOptions = {}) {}

  async start({ pool, capabilities, signal }: LaunchRequest): Promise<LaunchedBrowser> {
    if (pool.kind !== 'local') throw new Error(`ChromedriverLauncher cannot start a ${pool.kind} pool`);
    signal.throwIfAborted();
    const driver = (await this.warm.take(pool)) ?? (await this.spawnDriver(pool.chromedriver, signal, false));
    if (signal.aborted) {
      await this.stop(driver.handle);
      throw signal.reason;
    }
    return {
      address: `127.0.0.1:${driver.port}`,
      handle: driver.handle,
      capabilities: chromiumCapabilities(pool, capabilities, {
        userDataDir: driver.userDataDir,
        runningAsRoot: process.getuid?.() === 0,
      }),
    };
  }

  /** Keeps each local pool's `warm` chromedrivers started (none for other kinds); call with every config. */
  keepWarm(pools: readonly PoolConfig[]): void {
    this.warm.keep(pools);
  }

  /** Chromedrivers of this pool started ahead of demand and ready for a new session now. */
  warmCount(pool: string): number {
    return this.warm.count(pool);
  }

  private async spawnDriver(chromedriver: string, signal: AbortSignal, warm: boolean): Promise<ReadyDriver> {
    const userDataDir = await mkdtemp(join(tmpdir(), `${PROFILE_PREFIX}${process.pid}-`));
    if (this.stopped) {
      await rm(userDataDir, { recursive: true, force: true });
      throw new Error('gridgate is stopping: no browser is started');
    }
    const child = spawn(chromedriver, ['--port=0'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Inherited by Chromium too: tells gridgate's browsers from others on the machine.
      env: { ...process.env, [LAUNCHED_BY_ENV]: String(process.pid) },
    });
    const handle = String(child.pid ?? `failed-${Date.now()}`);
    // A chromedriver that could not be spawned reports 'error' and never 'exit'.
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    const driver: RunningDriver = { child, userDataDir, exited, stopping: false, warm };
    this.drivers.set(handle, driver);
    child.once('exit', (code, exitSignal) => {
      if (driver.stopping) return;
      if (!driver.warm) return this.options.onUnexpectedExit?.(handle, code, exitSignal);
      this.warm.discard(handle);
      void this.stop(handle).catch(() => undefined); // its profile directory still goes
    });
    try {
      const port = await waitForPort(child, signal);
      return { handle, port, userDataDir };
    } catch (error) {
      await this.stop(handle);
      throw error;
    }
  }

  async stop(handle: string): Promise<void> {
    const driver = this.drivers.get(handle);
    if (!driver || driver.stopping) return driver?.exited;
    driver.stopping = true;
    const { child, userDataDir, exited } = driver;
    killGroup(child, 'SIGTERM');
    const gone = await exitsWithin(exited, STOP_GRACE_MS);
    // Chromium outlives a chromedriver that is killed, so the whole group goes, now without asking.
    killGroup(child, 'SIGKILL');
    if (!gone) await exited;
    await groupGone(child);
    await rm(userDataDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
    this.drivers.delete(handle);
  }

  /** Stops every chromedriver: those serving or being started for sessions, and the warm ones. */
  async stopAll(): Promise<void> {
    this.stopped = true;
    await this.warm.close();
    await Promise.all([...this.drivers.keys()].map((handle) => this.stop(handle)));
  }

  /** Handles of the chromedrivers running now for sessions (warm ones waiting for a session not included). */
  running(): string[] {
    return [...this.drivers].flatMap(([handle, driver]) => (driver.warm ? [] : [handle]));
  }

  private alive(handle: string): boolean {
    const driver = this.drivers.get(handle);
    return (
      driver !== undefined &&
      !driver.stopping &&
      driver.child.exitCode === null &&
      driver.child.signalCode === null
    );
  }
}

function waitForPort(child: ChildProcess, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const onStderr = (chunk: Buffer) => output.push(chunk.toString());
    child.stderr?.on('data', onStderr);
    const done = (settle: () => void) => {
      lines.close();
      // From now on chromedriver's output is not needed, but its pipes must keep draining.
      child.stderr?.off('data', onStderr);
      child.stdout?.resume();
      child.stderr?.resume();
      signal.removeEventListener('abort', onAbort);
      child.off('error', onError);
      child.off('exit', onExit);
      settle();
    };
    const onAbort = () => done(() => reject(signal.reason));
    const onError = (error: Error) =>
      done(() => reject(new Error(`cannot start chromedriver: ${error.message}`)));
    const onExit = (code: number | null) =>
      done(() =>
        reject(
          new Error(`chromedriver exited (code ${code}) before it was ready: ${output.join('').trim()}`),
        ),
      );
    lines.on('line', (line) => {
      output.push(line);
      const port = STARTED.exec(line)?.[1];
      if (port) done(() => resolve(Number(port)));
    });
    signal.addEventListener('abort', onAbort, { once: true });
    child.once('error', onError);
    child.once('exit', onExit);
    // Aborted while the profile directory was made: an abort event will not come again.
    if (signal.aborted) onAbort();
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Waits (briefly) until no process of the group is left, so "stopped" means stopped. */
async function groupGone(child: ChildProcess): Promise<void> {
  for (let waited = 0; waited < GROUP_EXIT_WAIT_MS && child.pid !== undefined; waited += 20) {
    try {
      process.kill(-child.pid, 0);
    } catch {
      return;
    }
    await delay(20);
  }
}

// These timers stay referenced: at shutdown they are what keeps Node alive until the browsers are gone.
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function exitsWithin(exited: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const result = await Promise.race([exited.then(() => true), timedOut]);
  clearTimeout(timer);
  return result;
}
