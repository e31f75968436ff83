/** GET /status (W3C §8.3, with capacity and queue per pool) and GET /ping (ggr-compatible). */
import { artifactSources } from '../core/artifact-location';
import type { ArtifactUsage } from '../core/artifact-ports';
import type { PoolConfig } from '../core/config';
import { configTraitsOf } from '../core/config-traits-by-kind';
import { formatDuration } from '../core/duration';
import { type GridDeps, runtimeOf } from '../core/grid-deps';

// /status answers without credentials (load balancers, ggr), so it counts waiting requests but names no user.
export async function gridStatus(deps: GridDeps) {
  const configured = Object.values(deps.config.pools);
  const [inUse, warm, recordings] = await Promise.all([
    deps.sessions.inUse(),
    Promise.all(configured.map((pool) => warmth(deps, pool))),
    recordingUsage(deps),
  ]);
  const queue = deps.queue.lengths();
  const pools = configured.map((pool, i) => ({
    name: pool.name,
    kind: pool.kind,
    maxSessions: pool.maxSessions,
    inUse: inUse[pool.name] ?? 0,
    waiting: queue.byPool[pool.name] ?? 0,
    ...warm[i],
    ...(pool.region ? { region: pool.region } : {}),
    ...(pool.color ? { color: pool.color } : {}),
  }));
  const free = pools.reduce((sum, pool) => sum + Math.max(0, pool.maxSessions - pool.inUse), 0);
  const total = pools.reduce((sum, pool) => sum + pool.maxSessions, 0);
  // W3C "ready": whether a new session could start now; requests waiting on their users' limits don't change that.
  const ready = free > 0 && Object.keys(deps.runtimes).length > 0;
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
      ...(recordings.length ? { recordings } : {}),
    },
  };
}

/**
 * What kept videos and logs use where this server keeps them, against the bounds (`recording.maxDiskSize`,
 * `recording.retention`); a source that cannot say is left out, so /status still answers.
 */
async function recordingUsage(deps: GridDeps): Promise<ArtifactUsage[]> {
  const usages = await Promise.all(
    artifactSources(deps).map((source) => source.usage?.().catch(() => undefined)),
  );
  return usages.filter((usage): usage is ArtifactUsage => usage !== undefined);
}

/** What this app has served since it started, for /ping. */
export interface RequestCounter {
  startedAt: number;
  /** Requests clients made of the grid: sessions, commands, /host, /quota…; not /status, /ping or /metrics. */
  requests: number;
  /** Sessions created. */
  sessions: number;
}

export function newRequestCounter(startedAt: number): RequestCounter {
  return { startedAt, requests: 0, sessions: 0 };
}

/**
 * ggr's /ping, with ggr's meanings (its `numRequests` and `numSessions` count since start, which a
 * monitor turns into rates), and the sessions open now under a name of their own.
 */
export async function gridPing(deps: GridDeps, counter: RequestCounter) {
  return {
    uptime: formatDuration(deps.clock.now() - counter.startedAt),
    lastReloadTime: new Date(deps.configLoadedAt ?? counter.startedAt).toISOString(),
    numRequests: counter.requests,
    numSessions: counter.sessions,
    openSessions: (await deps.sessions.running()).length,
    version: deps.version,
  };
}

/**
 * `warm`: how many of the pool's browsers started ahead of demand a new session could take now. Only
 * kinds that keep some report it, 0 for a pool without a `warm` setting (never asked: an ecs pool's
 * count is a store read). A count that cannot be read is logged and left out (unknown): /status still answers.
 */
async function warmth(deps: GridDeps, pool: PoolConfig): Promise<{ warm?: number }> {
  const counter = runtimeOf(deps, pool)?.warm;
  if (!counter) return {};
  if (!keepsWarm(pool)) return { warm: 0 };
  try {
    return { warm: await counter.warmCount(pool.name) };
  } catch (error) {
    deps.logger.log('UPSTREAM_ERROR', {
      pool: pool.name,
      operation: 'warm count',
      error: error instanceof Error ? error.message : String(error),
    });
    return {};
  }
}

/** A local or container pool's `warm: N`, an ecs pool's `warm` with a `max` above 0 (the ones the launcher claims from). */
function keepsWarm(pool: PoolConfig): boolean {
  return configTraitsOf(pool).keepsWarm(pool);
}
