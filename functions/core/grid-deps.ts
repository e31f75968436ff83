/** What gridgate's use cases are built from: the config and one adapter per port. */
import type { ArtifactSource } from './artifact-ports';
import { addressAllowed } from './browser-network';
import type { Config, PoolConfig } from './config';
import type { EndedSessions } from './ended-sessions';
import type { EndingSessions } from './ending-sessions';
import type { PoolRuntime, RuntimesByKind } from './pool-runtime';
import type { PoolTraits, PoolTraitsByKind } from './pool-traits';
import type { Clock, Launcher, Logger, Metrics, SessionStore, UserDirectory } from './ports';
import type { RequestPricing } from './session-cost';
import type { SessionTokens } from './session-token';
import type { SlotQueue } from './slot-queue';

export interface GridDeps {
  /** Replaced whole by a reload (swapConfig), never edited in place: read it at call time, keep no pieces. */
  config: Config;
  /**
   * Pools a reload removed or changed while sessions ran in them, as they were: those sessions keep
   * working, and their addresses are still checked against the pool they were created in.
   */
  retiredPools?: PoolConfig[];
  /** When the config in use was loaded (start or last successful reload), for /ping; else the app's start. */
  configLoadedAt?: number;
  /** One runtime per pool kind in use (its launcher and parts), typed for its kind's pools: read through runtimeOf. */
  runtimes: RuntimesByKind;
  /** Each pool kind's run-time traits (pools/index.ts's POOL_TRAITS): read through traitsOf. */
  poolTraits: PoolTraitsByKind;
  /** Where each pool kind's session videos and logs are kept (core/artifact-location.ts); none: not served. */
  artifacts?: Partial<Record<PoolConfig['kind'], ArtifactSource>>;
  sessions: SessionStore;
  /** The sessions this router ended lately: their commands are refused here, with the reason. */
  ended: EndedSessions;
  /**
   * The ends of sessions this process has under way (endSession): a DELETE refused because its session
   * ended answers once that end is over. None: a DELETE answers at once.
   */
  ending?: EndingSessions;
  /** New-session requests waiting for a slot; every release must notify() it. */
  queue: SlotQueue;
  /** Checks Basic-auth credentials; present exactly when the config names a usersFile. */
  users?: UserDirectory;
  tokens: SessionTokens;
  logger: Logger;
  /** Counters and timings; none: nothing is measured. */
  metrics?: Metrics;
  /** What a request passes through where this app runs, for cloud sessions' estimated costs (at the config's prices). */
  requestPricing?: RequestPricing;
  clock: Clock;
  /** Server version, for /ping and /status. */
  version: string;
  /** True once the server is shutting down: no new session may start then (its browser would outlive it). */
  stopping?: () => boolean;
  /**
   * Keys of the sessions this process is recording now: a record may be in the store before its write is
   * answered (the write is retried), still dated from before it, and the expiry sweep must not end a
   * session whose answer has not gone out yet. None: nothing is left alone.
   */
  creating?: Set<string>;
  /**
   * This process's own name among the heads that share a store (random, new at each start), written on the
   * records of the sessions it creates (SessionRecord.head); none: records name no head.
   */
  head?: string;
}

/** The run-time traits of the pool's kind. */
export function traitsOf(deps: Pick<GridDeps, 'poolTraits'>, pool: Pick<PoolConfig, 'kind'>): PoolTraits {
  return deps.poolTraits[pool.kind];
}

/** The runtime of the pool's kind, typed for that pool; undefined when none of its kind is wired. */
export function runtimeOf<P extends PoolConfig>(
  deps: Pick<GridDeps, 'runtimes'>,
  pool: P,
): PoolRuntime<P> | undefined {
  // runtimes is keyed by the discriminant the pool carries: the entry is its own kind's runtime.
  return deps.runtimes[pool.kind] as PoolRuntime<P> | undefined;
}

/** The launcher of the pool's kind, typed for that pool; undefined when no launcher of its kind is wired. */
export function launcherOf<P extends PoolConfig>(
  deps: Pick<GridDeps, 'runtimes'>,
  pool: P,
): Launcher<P> | undefined {
  return runtimeOf(deps, pool)?.launcher;
}

export function launcherFor(deps: GridDeps, poolName: string): Launcher | undefined {
  const pool = poolsNamed(deps, poolName)[0];
  return pool && launcherOf(deps, pool);
}

/**
 * The pool a session was created in, by its ID's claims: the configured pool of its name, or a retired
 * one, whichever holds its address. Undefined when none does (the ID must then be refused).
 */
export function sessionPool(
  deps: GridDeps,
  claims: { pool: string; address: string },
): PoolConfig | undefined {
  // Read for every command: the configured pool first, without building the list poolsNamed gives.
  const current = Object.hasOwn(deps.config.pools, claims.pool) ? deps.config.pools[claims.pool] : undefined;
  if (current && addressAllowed(current, claims.address)) return current;
  return deps.retiredPools?.find((pool) => pool.name === claims.pool && addressAllowed(pool, claims.address));
}

/** The configured pool of that name, then the retired ones: every pool a running session may be in. */
export function poolsNamed(deps: GridDeps, poolName: string): PoolConfig[] {
  const current = Object.hasOwn(deps.config.pools, poolName) ? deps.config.pools[poolName] : undefined;
  const retired = (deps.retiredPools ?? []).filter((pool) => pool.name === poolName);
  return current ? [current, ...retired] : retired;
}
