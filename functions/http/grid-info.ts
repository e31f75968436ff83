/** GET /status (W3C §8.3, with capacity and queue per pool) and GET /ping (ggr-compatible). */
import { formatDuration } from '../core/duration';
import type { GridDeps } from '../core/grid-deps';
import type { Launcher } from '../core/ports';

/** A launcher that starts browsers ahead of demand says how many are ready (the local one does). */

// /status answers without credentials (load balancers, ggr), so it counts waiting requests but names no user.
export async function gridStatus(deps: GridDeps) {
  const inUse = await deps.sessions.inUse();
  const queue = deps.queue.lengths();
  const pools = Object.values(deps.config.pools).map((pool) => ({
    name: pool.name,
    kind: pool.kind,
    maxSessions: pool.maxSessions,
    inUse: inUse[pool.name] ?? 0,
    waiting: queue.byPool[pool.name] ?? 0,
    ...warmth(deps.launchers[pool.kind], pool.name),
    ...(pool.region ? { region: pool.region } : {}),
    ...(pool.color ? { color: pool.color } : {}),
  }));
  const free = pools.reduce((sum, pool) => sum + Math.max(0, pool.maxSessions - pool.inUse), 0);
  const total = pools.reduce((sum, pool) => sum + pool.maxSessions, 0);
  // W3C "ready": whether a new session could start now; requests waiting on their users' limits don't change that.
  const ready = free > 0 && Object.keys(deps.launchers).length > 0;
  const waiting = queue.waiting > 0 ? `; ${queue.waiting} waiting for a slot` : '';
  return {
    value: {
      ready,
      message: ready
        ? `gridgate is ready: ${total - free} of ${total} sessions in use${waiting}`
        : `gridgate is at capacity${waiting}`,
      build: { version: deps.version },
      waiting: queue.waiting,
      pools,
    },
  };
}

export interface RequestCounter {
  startedAt: number;
  requests: number;
}

export async function gridPing(deps: GridDeps, counter: RequestCounter) {
  return {
    uptime: formatDuration(deps.clock.now() - counter.startedAt),
    lastReloadTime: new Date(deps.configLoadedAt ?? counter.startedAt).toISOString(),
    numRequests: counter.requests,
    numSessions: (await deps.sessions.running()).length,
    version: deps.version,
  };
}

// Only launchers that can start browsers ahead of demand report `warm` (0 when the pool keeps none).
function warmth(launcher: Launcher | undefined, pool: string): { warm?: number } {
  return launcher?.warmCount ? { warm: launcher.warmCount(pool) } : {};
}
