/**
 * The warm pool's demand port: what the store remembers of recent session starts, to size the pool from; and
 * what the scheduled cleanup keeps warm pools with (the store, the demand, its schedule).
 */
import type { WarmTaskStore } from './warm-task-store';

/** One session start the store remembers: running sessions and ended ones still retained. */
export interface SessionStart {
  pool: string;
  /** Epoch ms. */
  createdAt: number;
}

export interface SessionStarts {
  /** Sessions created at or after `since` (epoch ms), in any order. */
  startedSince(since: number): Promise<SessionStart[]>;
}

/** The cleanup's schedule when CLEANUP_INTERVAL does not say (infra/orphan-cleanup.ts: every minute). */
export const DEFAULT_CLEANUP_INTERVAL_MS = 60_000;

/** What the cleanup needs for warm pools; absent, warm browsers are neither started nor registered. */
export interface WarmPoolDeps {
  warm: WarmTaskStore;
  starts: SessionStarts;
  /** The cleanup's schedule interval: demand is counted per interval. @default DEFAULT_CLEANUP_INTERVAL_MS */
  intervalMs?: number;
  /** How many intervals back demand is looked for (≤ the ended records' retention, 1 h). @default 10 */
  intervals?: number;
  random?: () => number;
}
