/**
 * Swapping a reloaded config into a running grid: the one place GridDeps.config is replaced. Keys only
 * a restart can change keep their running values; pools that go away while sessions run in them retire
 * instead, so those sessions work until they end.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Config } from './config';
import type { GridDeps } from './grid-deps';

/** Keys the running server cannot change: the socket is bound, the user directory is open, the workers run. */
export const RESTART_ONLY_KEYS = ['port', 'host', 'usersFile', 'workers'] as const;
export type RestartOnlyKey = (typeof RESTART_ONLY_KEYS)[number];

export interface RestartNeeded {
  key: RestartOnlyKey;
  running: unknown;
  configured: unknown;
}

/** Why the new config cannot run here at all (so the old one stays): a pool kind with no launcher. */
export function unservablePools(deps: GridDeps, next: Config): string[] {
  return Object.values(next.pools)
    .filter((pool) => !deps.runtimes[pool.kind])
    .map(
      (pool) =>
        `pools.${pool.name}: a ${pool.kind} pool needs a restart (no ${pool.kind} launcher is running)`,
    );
}

export interface SwapResult {
  /** Restart-only keys the new config changes; their running values were kept. */
  restartNeeded: RestartNeeded[];
}

/**
 * Makes `next` the config in use, in one synchronous step. Every pool it removes or changes retires as
 * it was, so no session is refused while the store is asked which of them still hold slots (see
 * pruneRetiredPools).
 */
export function swapConfig(deps: GridDeps, next: Config, now: number): SwapResult {
  const previous = deps.config;
  const restartNeeded: RestartNeeded[] = [];
  const kept: Partial<Config> = {};
  for (const key of RESTART_ONLY_KEYS) {
    if (previous[key] === next[key]) continue;
    restartNeeded.push({ key, running: previous[key], configured: next[key] });
    Object.assign(kept, { [key]: previous[key] });
  }
  const candidates = [...(deps.retiredPools ?? []), ...Object.values(previous.pools)];
  deps.retiredPools = candidates.filter(
    (pool, index) =>
      !isDeepStrictEqual(ownPool(next, pool.name), pool) &&
      // A pool retired twice (changed, changed back, changed again) is kept once.
      candidates.findIndex((other) => isDeepStrictEqual(other, pool)) === index,
  );
  deps.config = { ...next, ...kept };
  deps.configLoadedAt = now;
  return { restartNeeded };
}

/**
 * Forgets retired pools of whose name no slot is taken (`inUse`, the store's count per pool, asked after
 * the swap: no new session enters a retired pool). Returns the names still retired.
 */
export function pruneRetiredPools(deps: GridDeps, inUse: Record<string, number>): string[] {
  deps.retiredPools = (deps.retiredPools ?? []).filter((pool) => (inUse[pool.name] ?? 0) > 0);
  return [...new Set(deps.retiredPools.map((pool) => pool.name))];
}

function ownPool(config: Config, name: string) {
  return Object.hasOwn(config.pools, name) ? config.pools[name] : undefined;
}

/** The config in use as a reload left it: what a server's worker processes take over from its primary. */
export type ConfigState = Required<Pick<GridDeps, 'config' | 'retiredPools' | 'configLoadedAt'>>;

export function configState(deps: GridDeps): ConfigState {
  return {
    config: deps.config,
    retiredPools: deps.retiredPools ?? [],
    configLoadedAt: deps.configLoadedAt ?? deps.clock.now(),
  };
}

/** Takes over the primary's config in use as it is (the primary checked and swapped it; see swapConfig). */
export function adoptConfigState(deps: GridDeps, state: ConfigState): void {
  deps.config = state.config;
  deps.retiredPools = state.retiredPools;
  deps.configLoadedAt = state.configLoadedAt;
}
