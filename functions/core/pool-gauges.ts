/**
 * The levels each pool is at (sessions in use, capacity, requests waiting), reported through the Metrics
 * port in one place: the cleanup's pass writes them as EMF, the Node server's /metrics sets them at every
 * scrape. Every configured pool is reported (0 too), so a graph drops to zero instead of stopping.
 */
import type { PoolConfig } from './config';
import type { GridDeps } from './grid-deps';
import type { Metrics } from './ports';

export interface PoolLevels {
  /** Slots taken per pool (SessionStore.inUse). */
  inUse: Record<string, number>;
  /** Requests waiting per pool (SlotQueue.lengths().byPool); none where no queue is known (the cleanup). */
  waiting?: Record<string, number>;
}

export function reportPoolGauges(metrics: Metrics, pools: readonly PoolConfig[], levels: PoolLevels): void {
  for (const pool of pools) {
    // The colour is a configured one by definition here: the pool carries it.
    const dimensions = pool.color ? { pool: pool.name, color: pool.color } : { pool: pool.name };
    metrics.gauge('ActiveSessions', levels.inUse[pool.name] ?? 0, dimensions);
    metrics.gauge('PoolCapacity', pool.maxSessions, dimensions);
    if (levels.waiting) metrics.gauge('QueueWaiting', levels.waiting[pool.name] ?? 0, dimensions);
  }
}

/** The levels of every pool of the grid's config as they are now: what a Prometheus scrape reports. */
export async function reportGridGauges(deps: GridDeps, metrics: Metrics): Promise<void> {
  const inUse = await deps.sessions.inUse();
  reportPoolGauges(metrics, Object.values(deps.config.pools), {
    inUse,
    waiting: deps.queue.lengths().byPool,
  });
}
