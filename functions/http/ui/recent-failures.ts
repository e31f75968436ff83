/**
 * The status page's "recent failures": the last SESSION_FAILED log events this process saw. The store
 * keeps no failures, so this is the one piece of state the page adds: in this process's memory only,
 * bounded, best effort (another router head, or another Lambda environment, keeps its own list, and a
 * restart forgets it).
 */
import type { GridDeps } from '../../core/grid-deps';
import type { Logger } from '../../core/ports';
import type { SessionFailure } from './ui-views';

/** Enough for a person to see what went wrong lately, small enough never to matter. */
export const RECENT_FAILURES_KEPT = 50;

export class RecentFailures {
  private readonly failures: SessionFailure[] = [];

  constructor(private readonly limit = RECENT_FAILURES_KEPT) {}

  add(failure: SessionFailure): void {
    this.failures.push(failure);
    if (this.failures.length > this.limit) this.failures.splice(0, this.failures.length - this.limit);
  }

  /** Newest first. */
  list(): SessionFailure[] {
    return [...this.failures].reverse();
  }
}

// One list per grid, however many apps are built on it (tests build several on one deps).
const listsByGrid = new WeakMap<GridDeps, RecentFailures>();

/**
 * The grid's list, made the first time it is asked for by putting a logger in front of deps.logger that
 * notes each SESSION_FAILED and passes every event on unchanged. Use cases read deps.logger when they
 * log, so every failure logged after this call is seen.
 */
export function recentFailures(deps: GridDeps): RecentFailures {
  const existing = listsByGrid.get(deps);
  if (existing) return existing;
  const list = new RecentFailures();
  const inner = deps.logger;
  const noting: Logger = {
    log(event, fields) {
      inner.log(event, fields);
      if (event !== 'SESSION_FAILED' || !fields) return;
      list.add({
        at: deps.clock.now(),
        user: String(fields.user ?? ''),
        session: String(fields.session ?? ''),
        reason: String(fields.reason ?? 'unknown'),
      });
    },
  };
  deps.logger = noting;
  listsByGrid.set(deps, list);
  return list;
}
