/** The warm pool's demand port: what the store remembers of recent session starts, to size the pool from. */

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
