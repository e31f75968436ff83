/**
 * How many idle tasks a pool's warm pool should hold, and how many the cleanup starts this pass: pure
 * arithmetic over what the store recorded, so the cleanup adapter only gathers facts and acts.
 *
 * The model: the cleanup refills the pool once per interval, and a task it starts becomes claimable about
 * one interval later (a Fargate cold start, then registration on the next pass). So between two refills
 * the pool must cover the sessions started in one interval. Demand is taken as the busiest interval of
 * the recent window (the peak, not the mean: a burst that drained the pool once will likely come again,
 * and max and the idle TTL bound what a wrong guess costs).
 */

export interface WarmDemand {
  /** Epoch ms of each session start in the window (others are ignored). */
  starts: readonly number[];
  now: number;
  /** The cleanup's schedule interval. */
  intervalMs: number;
  /** How many intervals back the window reaches. */
  intervals: number;
  min: number;
  max: number;
}

/** clamp(most sessions started in any one interval of the window, min, max). */
export function warmPoolTarget({ starts, now, intervalMs, intervals, min, max }: WarmDemand): number {
  const perInterval = new Array<number>(intervals).fill(0);
  for (const at of starts) {
    const age = now - at;
    if (age < 0 || age >= intervalMs * intervals) continue;
    perInterval[Math.floor(age / intervalMs)] = (perInterval[Math.floor(age / intervalMs)] ?? 0) + 1;
  }
  const peak = Math.max(0, ...perInterval);
  return Math.min(max, Math.max(min, peak));
}

export interface WarmPoolState {
  target: number;
  /** Registered idle tasks. */
  idle: number;
  /** Warm tasks started but not registered yet (they will be idle soon). */
  starting: number;
  /** The pool's maxSessions. */
  maxSessions: number;
  /** Slots held in the pool (sessions running or being created). */
  inUse: number;
  /** The most tasks one pass may start (RunTask's rate, the pass's time). */
  perPass: number;
}

/**
 * Tasks to start now: up to the target, never past the pool's free capacity (maxSessions minus slots in
 * use minus warm tasks already there), and at most perPass.
 */
export function warmTasksToStart({
  target,
  idle,
  starting,
  maxSessions,
  inUse,
  perPass,
}: WarmPoolState): number {
  const have = idle + starting;
  const free = maxSessions - inUse - have;
  return Math.max(0, Math.min(target - have, free, perPass));
}
