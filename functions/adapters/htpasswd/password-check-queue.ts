/**
 * Admits password checks to a few runners fairly: clients take turns (round robin), one client may have only `perClient` checks waiting or running, and only
 * `waiting` may wait in all. What is over a bound is refused at once with Retry-After (429 for the client over its share, 503 when the
 * queue is full), so a flood of wrong passwords costs its sender, not the others, and never piles up.
 *
 * Clients are told apart by address: per name would let anyone lock a user out by guessing at that name.
 */
import { WebDriverError } from '../../core/errors';

export interface PasswordCheckLimits {
  /** Checks run at once (the number of threads). */
  running: number;
  /** Checks that may wait for a runner, over all clients. */
  waiting: number;
  /** Checks one client may have waiting or running. */
  perClient: number;
}

/** Where password checks are admitted and run: this queue, or (in a worker process) its primary's. */
export interface PasswordChecks {
  /** Whether `password` matches `hash`; rejects with a W3C error (Retry-After) when `client` is over a bound. */
  check(client: string, password: string, hash: string): Promise<boolean>;
}

/** Runs one check; the queue never asks for more than `limits.running` at once. */
export type PasswordCheckRunner = (password: string, hash: string) => Promise<boolean>;

interface Job {
  password: string;
  hash: string;
  resolve: (ok: boolean) => void;
  reject: (error: unknown) => void;
}

// A check takes about 100 ms; a second is long enough for the queue to have moved on.
const RETRY_AFTER_SECONDS = 1;

export class PasswordCheckQueue implements PasswordChecks {
  private readonly waitingByClient = new Map<string, Job[]>();
  private readonly inUseByClient = new Map<string, number>();
  /** When each client with checks under way last had one started, by a running count. */
  private readonly lastServed = new Map<string, number>();
  private turns = 0;
  private waitingCount = 0;
  private runningCount = 0;

  constructor(
    private readonly run: PasswordCheckRunner,
    private readonly limits: PasswordCheckLimits,
  ) {}

  /** Whether `password` matches `hash`, once a runner is free; rejects with a W3C error when over a bound. */
  check(client: string, password: string, hash: string): Promise<boolean> {
    const inUse = this.inUseByClient.get(client) ?? 0;
    if (inUse >= this.limits.perClient) return Promise.reject(tooManyFromClient(this.limits.perClient));
    const mustWait = this.runningCount >= this.limits.running;
    if (mustWait && this.waitingCount >= this.limits.waiting) return Promise.reject(queueFull());
    this.inUseByClient.set(client, inUse + 1);
    return new Promise<boolean>((resolve, reject) => {
      const job: Job = { password, hash, resolve, reject };
      if (!mustWait) return this.start(client, job);
      const queue = this.waitingByClient.get(client) ?? [];
      queue.push(job);
      this.waitingByClient.set(client, queue);
      this.waitingCount++;
    });
  }

  /** Checks waiting for a runner, and running. */
  get load(): { waiting: number; running: number } {
    return { waiting: this.waitingCount, running: this.runningCount };
  }

  private start(client: string, job: Job): void {
    this.runningCount++;
    this.lastServed.set(client, ++this.turns);
    let settled: Promise<boolean>;
    try {
      settled = this.run(job.password, job.hash);
    } catch (error) {
      settled = Promise.reject(error);
    }
    settled.then(job.resolve, job.reject).finally(() => {
      this.runningCount--;
      const left = (this.inUseByClient.get(client) ?? 1) - 1;
      if (left > 0) this.inUseByClient.set(client, left);
      else {
        this.inUseByClient.delete(client);
        this.lastServed.delete(client);
      }
      this.startNext();
    });
  }

  /** Starts the check of the waiting client served longest ago (or never): round robin over clients. */
  private startNext(): void {
    let next: string | undefined;
    let servedLongestAgo = Number.POSITIVE_INFINITY;
    for (const client of this.waitingByClient.keys()) {
      const servedAt = this.lastServed.get(client) ?? -1;
      if (servedAt < servedLongestAgo) [next, servedLongestAgo] = [client, servedAt];
    }
    if (next === undefined) return;
    const queue = this.waitingByClient.get(next) as Job[];
    const job = queue.shift() as Job;
    this.waitingCount--;
    if (queue.length === 0) this.waitingByClient.delete(next);
    this.start(next, job);
  }
}

function tooManyFromClient(perClient: number): WebDriverError {
  return new WebDriverError(
    'unknown error',
    `too many sign-ins from this address at once (${perClient} are being checked); try again`,
    { status: 429, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
  );
}

function queueFull(): WebDriverError {
  return new WebDriverError('unknown error', 'the grid is checking too many passwords at once; try again', {
    status: 503,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}
