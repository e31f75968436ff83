/** What gridgate's use cases are built from: the config and one adapter per port. */
import type { Config, PoolConfig } from './config';
import type { Clock, Launcher, Logger, SessionStore, UserDirectory } from './ports';
import type { SessionTokens } from './session-token';
import type { SlotQueue } from './slot-queue';

export interface GridDeps {
  config: Config;
  /** One launcher per pool kind in use. */
  launchers: Partial<Record<PoolConfig['kind'], Launcher>>;
  sessions: SessionStore;
  /** New-session requests waiting for a slot; every release must notify() it. */
  queue: SlotQueue;
  /** Checks Basic-auth credentials; present exactly when the config names a usersFile. */
  users?: UserDirectory;
  tokens: SessionTokens;
  logger: Logger;
  clock: Clock;
  /** Server version, for /ping and /status. */
  version: string;
}

export function launcherFor(deps: GridDeps, poolName: string): Launcher | undefined {
  const pool = deps.config.pools[poolName];
  return pool && deps.launchers[pool.kind];
}
