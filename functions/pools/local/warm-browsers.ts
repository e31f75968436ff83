/**
 * Browsers started ahead of demand, per local pool (`warm`), so a new session skips the start of both
 * chromedriver and Chromium: each warm browser is a chromedriver and a Chromium already launched with the
 * pool's default arguments, which chromedriver attaches to when the session is created. Only requests
 * that ask nothing of the launch take one (the launcher decides, see attach-capabilities.ts). A warm
 * browser is taken by exactly one session and replaced once it is handed over, in the background.
 */
import { type Backoff, backoffMs } from '../../core/backoff';
import type { PoolConfig } from '../../core/config';
import { answers } from './http-probe';

/** A chromedriver listening on loopback, and the Chromium it will attach to, with its profile directory. */
export interface ReadyBrowser {
  handle: string;
  /** host:port where chromedriver answers gridgate. */
  address: string;
  userDataDir: string;
  /** host:port where gridgate reaches the waiting Chromium's DevTools endpoint. */
  debuggerAddress: string;
  /** Where chromedriver attaches to it, when not there: inside the namespace they share. */
  attachAddress?: string;
}

/** What the launcher does for the warm pool: it owns the processes, this class only decides how many. */
export interface BrowserProcesses {
  /** Starts a chromedriver and a Chromium that are not yet anyone's; on abort they are stopped and the promise rejects. */
  spawn(pool: LocalPool, signal: AbortSignal): Promise<ReadyBrowser>;
  /** Whether chromedriver and Chromium still run and nobody is stopping them. */
  alive(handle: string): boolean;
  /** Hands it to a session: from now on its exit is that session's browser exiting. False if it is gone. */
  claim(handle: string): boolean;
  stop(handle: string): Promise<void>;
}

type LocalPool = Extract<PoolConfig, { kind: 'local' }>;

interface PoolWarmth {
  name: string;
  /** What the warm browsers were started from: when it changes they are replaced. */
  launch: string;
  pool: LocalPool;
  target: number;
  ready: ReadyBrowser[];
  starting: number;
  failures: number;
  /** After a failed start, no new one before this (epoch ms), so a broken chromedriver path is not hammered. */
  retryAt: number;
}

// A chromedriver or Chromium that does not answer this fast is not handed out: a cold start is safer.
const PROBE_TIMEOUT_MS = 2000;
// After failed starts in a row: 1 s, 2 s, 4 s … up to 30 s (one pool's own schedule: nobody to spread from).
const RETRY_BACKOFF: Backoff = { firstMs: 1000, maxMs: 30_000, factor: 2, jitter: 'none' };

export class WarmBrowsers {
  private readonly pools = new Map<string, PoolWarmth>();
  private readonly closing = new AbortController();
  private readonly starts = new Set<Promise<void>>();

  constructor(
    private readonly drivers: BrowserProcesses,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The pools of the config in use: starts what is missing, stops warm browsers no longer wanted (a pool
   * removed, its `warm` lowered, its chromedriver, Chromium or arguments changed). Cheap when nothing changed; call it after
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
   * A live warm browser of this pool whose chromedriver and Chromium both answer, now the caller's alone;
   * undefined when none is ready (the caller starts one cold). Starts its replacement.
   */
  async take(pool: LocalPool): Promise<ReadyBrowser | undefined> {
    if (this.closing.signal.aborted) return undefined;
    const state = this.want(pool);
    while (state?.ready.length) {
      const driver = state.ready.shift() as ReadyBrowser;
      if (
        this.drivers.alive(driver.handle) &&
        (await answers(driver.address, '/status', PROBE_TIMEOUT_MS)) &&
        (await answers(driver.debuggerAddress, '/json/version', PROBE_TIMEOUT_MS)) &&
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

  /** Warm browsers of this pool ready to be taken now. */
  count(poolName: string): number {
    return this.pools.get(poolName)?.ready.length ?? 0;
  }

  /** A warm browser's chromedriver or Chromium exited on its own: it is dropped, and its replacement waits a moment. */
  discard(handle: string): void {
    for (const state of this.pools.values()) {
      const index = state.ready.findIndex((driver) => driver.handle === handle);
      if (index < 0) continue;
      state.ready.splice(index, 1);
      this.failed(state);
    }
  }

  /**
   * Starts no more and waits until warm browsers being started are stopped; the ready ones stay the
   * launcher's to stop (it stops every process it owns).
   */
  async close(): Promise<void> {
    this.closing.abort(new Error('gridgate is stopping'));
    this.pools.clear();
    await Promise.all([...this.starts]);
  }

  private want(pool: LocalPool): PoolWarmth | undefined {
    const target = pool.warm ?? 0;
    const launch = launchKey(pool);
    let state = this.pools.get(pool.name);
    if (state && (state.launch !== launch || target === 0)) {
      this.forget(state);
      state = undefined;
    }
    if (target === 0) return undefined;
    if (!state) {
      state = {
        name: pool.name,
        launch,
        pool,
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
    let driver: ReadyBrowser;
    try {
      driver = await this.drivers.spawn(state.pool, this.closing.signal);
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

  /** Stops a warm browser nobody will use, in the background; stop() frees what it can and never throws. */
  private dismiss(handle: string): void {
    this.drivers.stop(handle).catch(() => undefined);
  }

  private failed(state: PoolWarmth): void {
    state.failures++;
    state.retryAt = this.now() + backoffMs(RETRY_BACKOFF, state.failures - 1);
  }
}

/** Everything a warm browser is started from; `warm` aside, a pool whose key changed needs new ones. */
function launchKey(pool: LocalPool): string {
  return JSON.stringify([pool.chromedriver, pool.chromium, pool.headless, pool.args]);
}
