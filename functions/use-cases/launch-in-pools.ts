/**
 * Trying pools for one new session: the pool whose slot is held first, then, as long as each fails in a way
 * another pool may not, the next one the ggr rules leave (core/host-choice.ts) that has a free slot at once.
 */
import type { PoolConfig } from '../core/config';
import { formatDuration } from '../core/duration';
import { WebDriverError } from '../core/errors';
import { type GridDeps, traitsOf } from '../core/grid-deps';
import { LaunchFailure, NO_FAILURES, nextCandidates, recordFailure } from '../core/host-choice';
import type { PoolTraits } from '../core/pool-traits';
import { releaseSlot, type SlotRequest, trySlot } from '../core/slots';
import type { CreatedSession, UpstreamWebDriver } from '../core/upstream-webdriver';
import { type LaunchAttempt, launchSession } from './launch-session';

/**
 * A session, or why none: `failure` for the log, `told` for the client (the failure without the causes only
 * the log keeps), `message` for the client when it is not the usual one, `stage` for the metrics (where the
 * last attempt failed).
 */
export type Launched =
  | { pool: PoolConfig; session: CreatedSession }
  | { failure: string; told: string; message?: string; stage: string };

/**
 * Launches in the pool whose slot is held; when that fails, frees the slot and tries the next pool the
 * ggr rules leave (core/host-choice) that has a free slot at once (the queue is not joined again). A hub
 * that answers a new session without its ID is a protocol error: 502 at once, no retry.
 */
export async function launchInPools(
  deps: GridDeps,
  upstream: UpstreamWebDriver,
  first: PoolConfig,
  slots: SlotRequest,
  attempt: LaunchAttempt,
  limit: TimeLimit,
): Promise<Launched> {
  // What the log says of each pool's failure, and what the client is told: the same but for the causes.
  const failures: string[] = [];
  const told: string[] = [];
  let hostError = '';
  let refusal = '';
  let attempts = 0;
  let stage = 'launch';
  let state = NO_FAILURES;
  let pool: PoolConfig | undefined = first;
  // The pools this attempt's was chosen from (it among them).
  let candidates = slots.pools;
  while (pool) {
    attempts++;
    try {
      const place = { othersLeft: candidates.length > 1 };
      return { pool, session: await launchSession(deps, upstream, pool, attempt, place) };
    } catch (error) {
      await releaseSlot(deps, attempt.key);
      if (answeredAtOnce(traitsOf(deps, pool), error)) {
        deps.logger.log('SESSION_FAILED', {
          session: attempt.key,
          user: attempt.user,
          reason: error.message,
        });
        throw error;
      }
      const failure = error instanceof LaunchFailure ? error : undefined;
      told.push(`pool ${pool.name}: ${(error as Error).message}`);
      failures.push(`pool ${pool.name}: ${(error as Error).message}${causeOf(failure)}`);
      stage = failureStage(error);
      hostError = failure?.hostError ?? '';
      state = recordFailure(state, pool, failure?.outcome ?? 'refused');
    }
    if (attempt.signal.aborted) {
      const timedOut = (attempt.signal.reason as Error)?.name === 'TimeoutError';
      const reason = abortReason(attempt.signal, limit);
      return { failure: reason, told: reason, stage: timedOut ? 'timeout' : 'client gone' };
    }
    const remaining = nextCandidates(slots.pools, state);
    if (remaining.length === 0) break;
    candidates = remaining;
    const next = await trySlot(deps, { ...slots, pools: remaining });
    pool = 'taken' in next ? next.taken : undefined;
    if ('refused' in next) {
      failures.push(next.refused);
      told.push(next.refused);
      refusal = `; ${next.refused}`;
    }
  }
  const failure = failures.join('; ');
  const reasons = told.join('; ');
  if (!slots.pools.some((p) => traitsOf(deps, p).remoteEnd === 'hub'))
    return { failure, told: reasons, stage };
  // ggr's wording, which its users search their logs for (ggr #307); it never names a hub.
  const { browserName, browserVersion } = attempt;
  const what = browserVersion ? `${browserName}-${browserVersion}` : browserName;
  const last = hostError ? `, last host error was: ${hostError}` : '';
  return {
    failure,
    told: reasons,
    message: `cannot create session ${what} on any hosts after ${attempts} attempt(s)${last}${refusal}`,
    stage,
  };
}

/**
 * Errors no other pool would answer differently, so the client hears them at once: a hub's protocol error
 * (502), a browser refusing the capabilities as `invalid argument` (W3C §7.2: the request is wrong), and
 * the session store unavailable (503 with Retry-After: recording the session failed, not the pool, and
 * every other pool meets the same store).
 */
function answeredAtOnce(traits: PoolTraits, error: unknown): error is WebDriverError {
  if (!(error instanceof WebDriverError)) return false;
  if (error.status === 503) return true;
  return error.code === 'invalid argument' || (traits.remoteEnd === 'hub' && error.status === 502);
}

/**
 * Where an attempt failed, as the metrics name it: the launcher's own stage when it has one (an ECS
 * task's capacity, launch, pull, driver); the new-session request to the browser or hub (refused or not
 * answered); else starting the browser.
 */
function failureStage(error: unknown): string {
  const stage = (error as { stage?: unknown } | undefined)?.stage;
  if (typeof stage === 'string') return stage;
  return error instanceof LaunchFailure || error instanceof WebDriverError ? 'session' : 'launch';
}

/** What a failed attempt's cause adds in the log: what the upstream's socket said, its address with it. */
function causeOf(failure: LaunchFailure | undefined): string {
  return failure?.cause === undefined ? '' : ` (${String(failure.cause)})`;
}

/** How long starting may take, and what set that: the config, or the runtime's deadline (a Lambda's). */
export interface TimeLimit {
  ms: number;
  source: string;
}

function abortReason(signal: AbortSignal, limit: TimeLimit): string {
  if ((signal.reason as Error)?.name !== 'TimeoutError') return 'the client went away';
  if (limit.source === 'timeouts.newSession') return `it took longer than ${formatDuration(limit.ms)}`;
  return `it took longer than the ${formatDuration(limit.ms)} left before ${limit.source}`;
}
