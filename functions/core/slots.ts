/**
 * Quota slots for new sessions: one atomic store step checks the user's and the pool's limit; when every
 * pool (or the user) is full the request waits in the SlotQueue; every release wakes the queue.
 */
import type { PoolConfig } from './config';
import { formatDuration } from './duration';
import { sessionNotCreated } from './errors';
import type { GridDeps } from './grid-deps';
import { QueueTimeoutError, type SlotTry } from './slot-queue';

// Nobody knows when a slot will free; this spreads retries of refused clients that honour Retry-After.
export const RETRY_AFTER_SECONDS = 10;

export interface SlotRequest {
  key: string;
  user: string;
  /** The user's limit over all pools; undefined means none. */
  userLimit: number | undefined;
  /** The pools to try, in order. */
  pools: PoolConfig[];
}

/** Tries the pools in order and takes the first free slot, or says why none was free. */
export async function trySlot(deps: GridDeps, request: SlotRequest): Promise<SlotTry<PoolConfig, string>> {
  const { key, user, userLimit } = request;
  const refusals: string[] = [];
  for (const requested of request.pools) {
    // A request may wait across a config reload: the pool's limit now, and no pool the reload removed.
    const pool = Object.hasOwn(deps.config.pools, requested.name)
      ? deps.config.pools[requested.name]
      : undefined;
    if (!pool) {
      refusals.push(`pool ${requested.name} is no longer configured`);
      continue;
    }
    const answer = await deps.sessions.acquire(key, {
      pool: pool.name,
      poolLimit: pool.maxSessions,
      user,
      userLimit,
    });
    if (answer.ok) return { taken: pool };
    // The user's limit holds in every pool: no point asking the others.
    if (answer.full === 'user') {
      return { refused: `user ${user} already holds ${answer.held} of ${userLimit} sessions` };
    }
    refusals.push(`pool ${pool.name} is full (${pool.maxSessions} sessions)`);
  }
  return { refused: refusals.join('; ') || 'no pool left to try' };
}

export interface WaitingSlotRequest extends SlotRequest {
  /** Longest to wait in the queue; 0 refuses at once. */
  timeoutMs: number;
  /** The client's signal. */
  signal: AbortSignal;
  /** What is being created, for the refusal: "chrome 156.0". */
  label: string;
}

/**
 * Takes a slot in one of the pools, waiting in the queue while the user or every pool is full. On
 * timeout: `session not created` naming the limit, with Retry-After. When the client goes away it
 * rejects with the signal's reason; a slot taken at that very moment is returned, for the caller to free.
 */
export async function takeSlot(deps: GridDeps, request: WaitingSlotRequest): Promise<PoolConfig> {
  const { key, user, signal, timeoutMs } = request;
  try {
    return await deps.queue.take(() => trySlot(deps, request), {
      user,
      pools: request.pools.map((pool) => pool.name),
      timeoutMs,
      signal,
      onWait: (reason, ahead) => deps.logger.log('SESSION_QUEUED', { session: key, user, reason, ahead }),
    });
  } catch (error) {
    if (!(error instanceof QueueTimeoutError)) throw error;
    const reason =
      (error.refusal as string | undefined) ?? `earlier requests of user ${user} are still waiting`;
    const waited = timeoutMs > 0 ? ` (waited ${formatDuration(timeoutMs)} for a slot)` : '';
    deps.logger.log('SESSION_FAILED', { session: key, user, reason, waitedMs: timeoutMs });
    throw sessionNotCreated(`cannot create a ${request.label} session: ${reason}${waited}`, {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  }
}

/** Gives the session's slot back (idempotent) and lets the queue know. */
export async function releaseSlot(deps: GridDeps, key: string): Promise<void> {
  await deps.sessions.release(key);
  deps.queue.notify();
}
