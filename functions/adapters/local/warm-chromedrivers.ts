/**
 * Chromedrivers started ahead of demand, per local pool (`warm`), so a new session skips chromedriver's
 * start-up. Only chromedriver waits: Chromium is launched by the session's own new-session request, so
 * the client's capabilities still apply and no browser ever serves two sessions. A warm chromedriver is
 * taken by exactly one session and replaced at once, in the background.
 */
import { request } from 'node:http';
import type { PoolConfig } from '../../core/config';

/** A chromedriver listening on loopback, with the profile directory its Chromium will get. */
export interface ReadyDriver {
  handle: string;
  port: number;
  userDataDir: string;
}

/** What the launcher does for the warm pool: it owns the processes, this class only decides how many. */
export interface DriverProcesses {
  /** Starts a chromedriver that is not yet anyone's; on abort it is stopped and the promise rejects. */
  spawn(chromedriver: string, signal: AbortSignal): Promise<ReadyDriver>;
  /** Whether the process still runs and nobody is stopping it. */
  alive(handle: string): boolean;
  /** Hands it to a session: from now on its exit is that session's browser exiting. False if it is gone. */
  claim(handle: string): boolean;
  stop(handle: string): Promise<void>;
}

interface PoolWarmth {
  name: string;
  chromedriver: string;
  target: number;
  ready: ReadyDriver[];
  starting: number;
  failures: number;
  /** After a failed start, no new one before this (epoch ms), so a broken chromedriver path is not hammered. */
  retryAt: number;
}

// A chromedriver that does not answer /status this fast is not handed out: a cold start is safer.
const PROBE_TIMEOUT_MS = 1000;
const RETRY_BASE_MS = 1000;
const RETRY_MAX_MS = 30_000;

export class WarmChromedrivers {
  private readonly pools = new Map<string, PoolWarmth>();
  private readonly closing = new AbortController();
  private readonly starts = new Set<Promise<void>>();

  constructor(
    private readonly drivers: DriverProcesses,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The pools of the config in use: starts what is missing, stops chromedrivers no longer wanted (a pool
   * removed, its `warm` lowered, its chromedriver changed). Cheap when nothing changed; call it after
   * every reload, or periodically.
   */
  keep(pools: readonly PoolConfig[]): void {
    if (this.closing.signal.aborted) return;
    const wanted = new Map(
      pools.flatMap((pool) => (pool.kind === 'local' ? [[pool.name, pool] as const] : [])),
    );
    for (const state of this.pools.values()) {
      if (!wanted.has(state.name)) this.forget(state);
    }
    for (const pool of wanted.values()) this.want(pool);
  }

  /**
   * A live, answering chromedriver of this pool, now the caller's alone; undefined when none is ready
   * (the caller starts one as before). Starts its replacement.
   */
  async take(pool: Extract<PoolConfig, { kind: 'local' }>): Promise<ReadyDriver | undefined> {
    if (this.closing.signal.aborted) return undefined;
    const state = this.want(pool);
    while (state?.ready.length) {
      const driver = state.ready.shift() as ReadyDriver;
      if (
        this.drivers.alive(driver.handle) &&
        (await answers(driver.port)) &&
        this.drivers.claim(driver.handle)
      ) {
        // The replacement's spawn (synchronous, several ms) runs after this session's browser is handed over.
        setImmediate(() => this.fill(state));
        return driver;
      }
      this.dismiss(driver.handle);
    }
    if (state) this.fill(state);
    return undefined;
  }

  /** Chromedrivers of this pool ready to be taken now. */
  count(poolName: string): number {
    return this.pools.get(poolName)?.ready.length ?? 0;
  }

  /** A warm chromedriver exited on its own: it is dropped, and its replacement waits a moment. */
  discard(handle: string): void {
    for (const state of this.pools.values()) {
      const index = state.ready.findIndex((driver) => driver.handle === handle);
      if (index < 0) continue;
      state.ready.splice(index, 1);
      this.failed(state);
    }
  }

  /**
   * Starts no more and waits until chromedrivers being started are stopped; the ready ones stay the
   * launcher's to stop (it stops every process it owns).
   */
  async close(): Promise<void> {
    this.closing.abort(new Error('gridgate is stopping'));
    this.pools.clear();
    await Promise.all([...this.starts]);
  }

  private want(pool: Extract<PoolConfig, { kind: 'local' }>): PoolWarmth | undefined {
    const target = pool.warm ?? 0;
    let state = this.pools.get(pool.name);
    if (state && (state.chromedriver !== pool.chromedriver || target === 0)) {
      this.forget(state);
      state = undefined;
    }
    if (target === 0) return undefined;
    if (!state) {
      state = {
        name: pool.name,
        chromedriver: pool.chromedriver,
        target,
        ready: [],
        starting: 0,
        failures: 0,
        retryAt: 0,
      };
      this.pools.set(pool.name, state);
    }
    state.target = target;
    for (const driver of state.ready.splice(target)) this.dismiss(driver.handle);
    this.fill(state);
    return state;
  }

  private forget(state: PoolWarmth): void {
    this.pools.delete(state.name);
    state.target = 0;
    for (const driver of state.ready.splice(0)) this.dismiss(driver.handle);
  }

  private fill(state: PoolWarmth): void {
    if (this.closing.signal.aborted || this.now() < state.retryAt) return;
    while (state.ready.length + state.starting < state.target) {
      state.starting++;
      const started = this.startOne(state).finally(() => {
        state.starting--;
        this.starts.delete(started);
      });
      this.starts.add(started);
    }
  }

  private async startOne(state: PoolWarmth): Promise<void> {
    let driver: ReadyDriver;
    try {
      driver = await this.drivers.spawn(state.chromedriver, this.closing.signal);
    } catch {
      // The launcher stopped what it started; the next keep() or take() tries again after the pause.
      this.failed(state);
      return;
    }
    state.failures = 0;
    // Wanted no more while it started: the pool was removed or lowered, or gridgate is stopping.
    const current = this.pools.get(state.name) === state;
    if (this.closing.signal.aborted || !current || state.ready.length >= state.target) {
      // Awaited, so close() returns only once it is gone.
      await this.drivers.stop(driver.handle).catch(() => undefined);
      return;
    }
    state.ready.push(driver);
  }

  /** Stops a chromedriver nobody will use, in the background; stop() frees what it can and never throws. */
  private dismiss(handle: string): void {
    this.drivers.stop(handle).catch(() => undefined);
  }

  private failed(state: PoolWarmth): void {
    state.failures++;
    state.retryAt = this.now() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (state.failures - 1));
  }
}

/** True when the chromedriver answers GET /status with 200: alive and not wedged. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = request(
      { host: '127.0.0.1', port, path: '/status', agent: false, timeout: PROBE_TIMEOUT_MS },
      (response) => {
        response.resume();
        resolve(response.statusCode === 200);
      },
    );
    probe.once('timeout', () => probe.destroy());
    probe.once('error', () => resolve(false));
    probe.end();
  });
}
