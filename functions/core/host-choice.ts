/**
 * Which pool a new session tries next after a failed attempt, the ggr way: a pool whose upstream refused
 * (a WebDriver error) is dropped; one that could not be reached takes its whole region (and every pool on
 * the same hub) out, so the next attempt goes elsewhere; once every region has failed, the pools left in
 * them are eligible again. Unlike ggr, a pool is never tried twice for one request.
 */
import type { PoolConfig } from './config';
import { configTraitsOf } from './config-traits-by-kind';

/** refused: the upstream answered with a WebDriver error; unreachable: no usable answer at all. */
export type AttemptOutcome = 'refused' | 'unreachable';

export interface RetryState {
  tried: ReadonlySet<string>;
  excludedRegions: ReadonlySet<string>;
  excludedHubs: ReadonlySet<string>;
}

export const NO_FAILURES: RetryState = {
  tried: new Set(),
  excludedRegions: new Set(),
  excludedHubs: new Set(),
};

// Pools without a region share the unnamed one, as in ggr.
const regionOf = (pool: PoolConfig) => pool.region ?? '';
// Pools on one hub share its address: a hub that failed is not tried again through another pool.
const hubOf = (pool: PoolConfig) => configTraitsOf(pool).sharedEndpoint?.(pool).address;

/** The state after `pool` failed with `outcome`. */
export function recordFailure(state: RetryState, pool: PoolConfig, outcome: AttemptOutcome): RetryState {
  const tried = new Set(state.tried).add(pool.name);
  if (outcome === 'refused') return { ...state, tried };
  const hub = hubOf(pool);
  return {
    tried,
    excludedRegions: new Set(state.excludedRegions).add(regionOf(pool)),
    excludedHubs: hub === undefined ? state.excludedHubs : new Set(state.excludedHubs).add(hub),
  };
}

/**
 * The pools still worth trying, in the given (weighted) order: those outside the excluded regions, or,
 * when no such pool is left, every pool not tried yet on a hub that was reachable.
 */
export function nextCandidates(ordered: PoolConfig[], state: RetryState): PoolConfig[] {
  const untried = ordered.filter((pool) => {
    const hub = hubOf(pool);
    return !state.tried.has(pool.name) && (hub === undefined || !state.excludedHubs.has(hub));
  });
  const elsewhere = untried.filter((pool) => !state.excludedRegions.has(regionOf(pool)));
  return elsewhere.length > 0 ? elsewhere : untried;
}

/** A failed attempt, classified; `hostError` is the upstream's own message ("" when it gave none). */
export class LaunchFailure extends Error {
  constructor(
    readonly outcome: AttemptOutcome,
    message: string,
    readonly hostError = '',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LaunchFailure';
  }
}

/**
 * The most one new-session attempt at a hub without a `timeout` of its own may take: an equal share of
 * the time the request has for starting, one share per upstream it could try (each distinct hub, each
 * other pool), so a hub that takes the connection and never answers leaves time for the others, as ggr
 * bounds every attempt (its -timeout). Undefined when there is nothing else to try: the request's own
 * deadline is then the only bound.
 */
export function hubAttemptShare(pools: readonly PoolConfig[], launchMs: number): number | undefined {
  const upstreams = new Set(pools.map((pool) => hubOf(pool) ?? `pool ${pool.name}`)).size;
  return upstreams > 1 ? Math.floor(launchMs / upstreams) : undefined;
}
