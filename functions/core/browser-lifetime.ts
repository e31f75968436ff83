/**
 * How long a browser may live at most, which the browser enforces on itself (an ecs task's container exits,
 * an eks pod's activeDeadlineSeconds passes): the last backstop of "nothing leaks", which holds even when
 * every gridgate process and the scheduled cleanup are gone. A leaked docker-selenium task never exits on
 * its own, and Fargate bills it until something stops it.
 */

/**
 * Past the cleanup's own bound (new session + maximum age + its one-minute grace, orphan-decisions.ts) and a
 * few of its passes: the cleanup ends a session's record and stops its browser first, in order; this only
 * catches what nobody is left to stop.
 */
export const LIFETIME_GRACE_MS = 5 * 60_000;

export interface LifetimeTimeouts {
  /** `timeouts.newSession`: the longest a launch takes before its session begins. */
  newSession: number;
  /** `timeouts.maxAge`, or a session's own shorter maximum age. */
  maxAge: number;
}

/**
 * The longest a browser can be in use: launched, then one session of at most its maximum age; a warm pool
 * task may first wait idle for up to `warmIdleMs` before a session claims it.
 */
export function browserInUseMs(timeouts: LifetimeTimeouts, warmIdleMs = 0): number {
  return timeouts.newSession + warmIdleMs + timeouts.maxAge;
}

/** Whole seconds after its start at which a browser in use at most `inUseMs` ends itself. */
export function hardLifetimeSeconds(inUseMs: number): number {
  return Math.ceil((inUseMs + LIFETIME_GRACE_MS) / 1000);
}
