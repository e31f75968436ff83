/**
 * The warm-task store's port: where pre-started browser tasks of a pool wait to be claimed, each by exactly
 * one new session. DynamoDB on AWS (adapters/aws/dynamo-warm-tasks.ts); its contract is
 * test/contract/warm-task-store.contract.ts.
 */

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
