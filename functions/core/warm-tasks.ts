/**
 * The warm pool's port: where pre-started browser tasks of a pool wait to be claimed, each by exactly one
 * new session, and what the store remembers of recent session starts (to size the pool from demand).
 */

import type { Config, PoolConfig } from './config';

/** Whether a pool keeps warm tasks (an ecs pool whose `warm` has a max above 0): only those are claimed and counted. */
export function keepsWarmTasks(pool: PoolConfig): boolean {
  return pool.kind === 'ecs' && (pool.warm?.max ?? 0) > 0;
}

/** The table warm tasks live in: the DynamoDB store's, when some pool keeps them; else none. */
export function warmTaskTable(config: Config): string | undefined {
  const some = Object.values(config.pools).some(keepsWarmTasks);
  return some && config.store.kind === 'dynamodb' ? config.store.table : undefined;
}

/** A pre-started task the cleanup registered once it was RUNNING and its WebDriver /status ready. */
export interface WarmTask {
  pool: string;
  /** The bare task ID: the launcher handle a session ID carries. */
  taskId: string;
  /** Its full ARN, which TagResource needs. */
  taskArn: string;
  /** host:port of its WebDriver endpoint. */
  address: string;
  /** Epoch ms when its launch began. */
  startedAt: number;
  /** Epoch ms when it was registered ready: the idle TTL counts from here. */
  readyAt: number;
  /** idle: waiting for a session; claimed: a new session took it (the claim tags the task next). */
  state: 'idle' | 'claimed';
  /** The claiming session's key, once claimed. */
  session?: string;
  /** Epoch ms of the claim. */
  claimedAt?: number;
}

export interface WarmClaim {
  /** The new session's key: a second claim with the same key gets the same task back. */
  key: string;
  at: number;
}

/** Warm tasks by pool; DynamoDB on AWS (one partition per pool). */
export interface WarmTaskStore {
  /**
   * Takes one idle task of the pool for this session, atomically: of concurrent claims on one task exactly
   * one wins, the others take another or get undefined (none idle).
   */
  claim(pool: string, claim: WarmClaim): Promise<WarmTask | undefined>;
  /** Adds an idle task; false when the task is known already (registered or claimed), which is left as is. */
  register(task: WarmTask): Promise<boolean>;
  /** Every task of the pool, idle and claimed. */
  list(pool: string): Promise<WarmTask[]>;
  /** Forgets a task (stopped, gone, or tagged claimed); idempotent. */
  remove(pool: string, taskId: string): Promise<void>;
  /**
   * Forgets a task only while it is idle, before the cleanup stops it: false when a session claimed it
   * meanwhile (it is theirs now and must not be stopped) or it is known no more.
   */
  retire(pool: string, taskId: string): Promise<boolean>;
}

/** The pool's tasks a new session could claim now (claimed ones are a session's already). */
export async function idleWarmTasks(store: WarmTaskStore, pool: string): Promise<number> {
  return (await store.list(pool)).filter((task) => task.state === 'idle').length;
}

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
