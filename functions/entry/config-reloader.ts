/**
 * Reloads the Node server's config file on SIGHUP and when the file changes (stat polling, as for the
 * users file: editors save by rename), without touching running sessions. A broken file keeps the
 * config in use and logs every problem.
 */
import { fingerprint, fingerprintSync } from '../adapters/fs/file-fingerprint';
import { type Config, ConfigError } from '../core/config';
import type { GridDeps } from '../core/grid-deps';
import { type PeriodicTask, runEvery } from '../core/periodic-task';
import { pruneRetiredPools, swapConfig, unservablePools } from '../core/swap-config';
import { readGridConfig } from './load-config';

export interface ConfigReloaderOptions {
  /** How often the file is checked for changes; 0 turns polling off (reload() still works). */
  pollMs?: number;
  /** The file's fingerprint when the config in use was read; by default, now. */
  fingerprint?: string;
  /** GRIDGATE_DEPLOYMENT's text, laid over the file at every reload as at start-up. */
  deployment?: string;
  /** Called after each reload that swapped a new config in (the primary passes it on to its workers). */
  onReloaded?: () => void;
}

const DEFAULT_POLL_MS = 2000;

export type ReloadTrigger = 'SIGHUP' | 'file changed';

export class ConfigReloader {
  private readonly polling: PeriodicTask | undefined;
  private fingerprint: string | undefined;
  private readonly deployment: string | undefined;
  private readonly onReloaded: (() => void) | undefined;
  // Reloads run one at a time, in the order asked, so the last file read is the one that stays.
  private last: Promise<unknown> = Promise.resolve();

  /** `path` undefined: the built-in defaults serve, and reloading does nothing. */
  constructor(
    private readonly deps: GridDeps,
    readonly path: string | undefined,
    options: ConfigReloaderOptions = {},
  ) {
    this.deployment = options.deployment;
    this.onReloaded = options.onReloaded;
    if (path === undefined) return;
    this.fingerprint = options.fingerprint ?? fingerprintSync(path);
    const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    if (pollMs > 0) this.polling = runEvery('config poll', pollMs, () => this.poll(), deps.logger);
  }

  /** Reads the file again and swaps it in; false (and logged) when it was not swapped in. Never rejects. */
  reload(trigger: ReloadTrigger): Promise<boolean> {
    const done = this.last.then(() =>
      this.reloadNow(trigger).catch((error: unknown) => this.failed(trigger, [String(error)])),
    );
    this.last = done.catch(() => undefined);
    return done;
  }

  /** Stops watching the file. */
  close(): void {
    this.polling?.stop();
  }

  private async poll(): Promise<void> {
    if (this.path === undefined) return;
    if ((await fingerprint(this.path)) !== this.fingerprint) await this.reload('file changed');
  }

  private async reloadNow(trigger: ReloadTrigger): Promise<boolean> {
    const { deps, path } = this;
    if (path === undefined) return false;
    // Taken before reading, so a change made while the file is read is still seen by the next poll;
    // recorded even when the reload fails, so a broken file is reported once, not every poll.
    this.fingerprint = await fingerprint(path);
    let next: Config;
    try {
      next = await readGridConfig(path, deps.logger, { deployment: this.deployment });
    } catch (error) {
      const problems = error instanceof ConfigError ? error.problems : [(error as Error).message];
      return this.failed(trigger, problems);
    }
    const problems = unservablePools(deps, next);
    if (problems.length > 0) return this.failed(trigger, problems);
    const { restartNeeded } = swapConfig(deps, next, deps.clock.now());
    for (const { key, running, configured } of restartNeeded) {
      deps.logger.log('CONFIG_RESTART_NEEDED', { path, key, running, configured: configured ?? null });
    }
    deps.queue.notify(); // larger limits or new pools may let waiting requests in
    // The store unreachable just now: every retired pool stays until the next reload asks again.
    const inUse = await deps.sessions.inUse().catch(() => undefined);
    const retiredPools = inUse
      ? pruneRetiredPools(deps, inUse)
      : [...new Set((deps.retiredPools ?? []).map((pool) => pool.name))];
    this.onReloaded?.();
    deps.logger.log('CONFIG_RELOADED', {
      path,
      trigger,
      pools: Object.keys(deps.config.pools),
      retiredPools,
    });
    return true;
  }

  private failed(trigger: ReloadTrigger, problems: string[]): false {
    this.deps.logger.log('CONFIG_RELOAD_FAILED', { path: this.path, trigger, problems });
    return false;
  }
}
