/**
 * How fast the REST stage lets requests through, sized from the config. API Gateway answers requests over
 * the limit with its own 429, which Selenium clients report as a failed command, so the limit must let
 * every session the grid can hold work at full speed: a WebDriver client sends one command at a time and
 * waits for its answer, and a round trip through API Gateway and Lambda takes tens of milliseconds, so a
 * busy session sends at most about 10 a second (a typical suite 2–5).
 */
import type { Config } from '../functions/core/config';

export interface StageThrottle {
  /** Steady requests per second over the stage. */
  rateLimit: number;
  /** Requests API Gateway admits at once above the steady rate. */
  burstLimit: number;
}

/** Commands per second one busy session sends. */
export const COMMANDS_PER_SESSION_SECOND = 10;
/** A floor, so a small grid's status page, /status probes and retries never meet the limit. */
const MINIMUM_RATE = 50;
/** API Gateway's default account-level limits per Region: 10,000 requests per second, a burst of 5,000. */
export const ACCOUNT_RATE_LIMIT = 10_000;
export const ACCOUNT_BURST_LIMIT = 5_000;

/** Sessions the grid can hold at once: every pool's `maxSessions`, added up. */
export function gridCapacity(config: Config): number {
  return Object.values(config.pools).reduce((sum, pool) => sum + pool.maxSessions, 0);
}

/** Every pool full and busy, with a burst of twice that; within the account's own limits. */
export function stageThrottle(config: Config): StageThrottle {
  const rateLimit = Math.min(
    ACCOUNT_RATE_LIMIT,
    Math.max(MINIMUM_RATE, gridCapacity(config) * COMMANDS_PER_SESSION_SECOND),
  );
  return { rateLimit, burstLimit: Math.min(ACCOUNT_BURST_LIMIT, 2 * rateLimit) };
}
