/**
 * One chromedriver kept started for each local pool that keeps no warm browsers, so that a new session
 * skips chromedriver's own start (a few hundred milliseconds on a loaded machine) and pays only for its
 * Chromium, which chromedriver still launches at the new-session request with whatever the session asks.
 * A ready chromedriver is no session's and holds no slot. One that was taken is replaced once the session's
 * browser answered (or its start failed), not before: a replacement started beside the session's Chromium
 * launch takes CPU time that launch needs, on a small machine from the very session it is meant to speed up
 * (bench/README.md). One that exits is replaced at the next keep(). It is stopped with the launcher or when its
 * pool goes. The launcher owns the processes; this class only decides which pool has one.
 */
import type { PoolConfig } from '../../core/config';

type LocalPool = Extract<PoolConfig, { kind: 'local' }>;

/** A chromedriver listening on loopback, not yet anyone's, with the profile directory made for its Chromium. */
export interface ReadyDriver {
  handle: string;
  /** host:port where chromedriver answers gridgate. */
  address: string;
  userDataDir: string;
}

/** What the launcher does for the ready chromedrivers. */
export interface DriverProcesses {
  /** Starts a chromedriver that is nobody's yet; on abort it is stopped and the promise rejects. */
  spawn(pool: LocalPool, signal: AbortSignal): Promise<ReadyDriver>;
  /** Whether it still runs and nobody is stopping it. */
  alive(handle: string): boolean;
  stop(handle: string): Promise<void>;
}

interface PoolDriver {
  /** The chromedriver program it was started from: a reload that changes it replaces the ready one. */
  chromedriver: string;
  ready?: ReadyDriver;
  starting?: Promise<void>;
  /** The pool as last kept, and the handle taken from it whose browser is still starting: no refill meanwhile. */
  pool: LocalPool;
  launching?: string;
}

export class ReadyChromedrivers {
  private readonly pools = new Map<string, PoolDriver>();
  private readonly shutdown = new AbortController();

  constructor(private readonly processes: DriverProcesses) {}

  /**
   * Keeps one ready for every local pool of these without `warm` browsers (those attach to a warm
   * browser instead) and stops the ones of pools no longer among them; call with every config.
   */
  keep(pools: readonly PoolConfig[]): void {
    if (this.shutdown.signal.aborted) return;
    const wanted = new Map<string, LocalPool>();
    for (const pool of pools) if (pool.kind === 'local' && !pool.warm) wanted.set(pool.name, pool);
    for (const [name, entry] of this.pools) {
      if (wanted.get(name)?.chromedriver !== entry.chromedriver) this.drop(name, entry);
    }
    for (const pool of wanted.values()) this.fill(pool);
  }

  /**
   * The pool's ready chromedriver, the caller's from now on; one still starting is
   * waited for (it is nearer ready than a new one); none when the pool keeps none or its start failed.
   */
  async take(pool: LocalPool): Promise<ReadyDriver | undefined> {
    const entry = this.pools.get(pool.name);
    if (entry && !entry.ready) await entry.starting;
    const ready = entry?.ready;
    if (!entry || !ready || entry.chromedriver !== pool.chromedriver) return undefined;
    entry.ready = undefined;
    if (this.processes.alive(ready.handle)) {
      // Replaced once launched(handle) says the session's browser is up, not now (see the module header).
      entry.launching = ready.handle;
      return ready;
    }
    void this.processes.stop(ready.handle).catch(() => undefined);
    return undefined;
  }

  /**
   * The browser of a session that took `handle` answered, or its start failed: its pool gets a new ready
   * chromedriver now. Any other handle is none of this class's business.
   */
  launched(handle: string): void {
    for (const entry of this.pools.values()) {
      if (entry.launching !== handle) continue;
      entry.launching = undefined;
      this.fill(entry.pool);
    }
  }

  /** Whether `handle` is a chromedriver waiting here; it is forgotten (it exited), and the next keep() replaces it. */
  discard(handle: string): boolean {
    for (const entry of this.pools.values()) {
      if (entry.ready?.handle !== handle) continue;
      entry.ready = undefined;
      return true;
    }
    return false;
  }

  /** Stops every ready chromedriver and those still starting; none is started after. */
  async close(): Promise<void> {
    this.shutdown.abort();
    const entries = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(entries.map((entry) => entry.starting));
    await Promise.all(entries.map((entry) => entry.ready && this.processes.stop(entry.ready.handle)));
  }

  private fill(pool: LocalPool): void {
    let entry = this.pools.get(pool.name);
    if (!entry) {
      entry = { chromedriver: pool.chromedriver, pool };
      this.pools.set(pool.name, entry);
    }
    entry.pool = pool;
    if (this.shutdown.signal.aborted || entry.ready || entry.starting || entry.launching) return;
    const filling = entry;
    filling.starting = this.processes
      .spawn(pool, this.shutdown.signal)
      .then(async (driver) => {
        // Started for a pool that went (or for a launcher stopping) meanwhile: nobody's, so stopped.
        if (this.pools.get(pool.name) !== filling || this.shutdown.signal.aborted) {
          await this.processes.stop(driver.handle);
          return;
        }
        filling.ready = driver;
      })
      // A chromedriver that failed to start is tried again at the next keep().
      .catch(() => undefined)
      .finally(() => {
        filling.starting = undefined;
      });
  }

  private drop(name: string, entry: PoolDriver): void {
    this.pools.delete(name);
    if (entry.ready) void this.processes.stop(entry.ready.handle).catch(() => undefined);
  }
}
