/**
 * The queue of new-session requests waiting for a slot: first in, first out per user, woken when a slot
 * frees, each bounded by its own timeout and its client's AbortSignal. It knows no store and no pool: it
 * runs the caller's attempt at the right moments, so it can be tested with a fake clock and no I/O.
 */

/** The timers the queue uses; injected so tests can move time by hand. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

export const systemTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

/** One try for a slot: what was taken, or why not (kept for the timeout error). */
export type SlotTry<T, R> = { taken: T } | { refused: R };

export interface WaitOptions<R> {
  user: string;
  /** The pools the request could use; only for the queue lengths in /status. */
  pools: readonly string[];
  /** Longest the request may wait; 0 refuses at once when the first try fails. */
  timeoutMs: number;
  /** The client's signal: aborting it leaves the queue. */
  signal: AbortSignal;
  /** Told once when the request starts to wait, with the refusal (undefined: it queued behind the user's own). */
  onWait?: (refusal: R | undefined, ahead: number) => void;
}

/** The request waited `timeoutMs` without getting a slot; `refusal` is the last reason it was refused. */
export class QueueTimeoutError<R> extends Error {
  constructor(
    readonly refusal: R | undefined,
    readonly timeoutMs: number,
  ) {
    super(`no slot within ${timeoutMs} ms`);
    this.name = 'QueueTimeoutError';
  }
}

export interface QueueLengths {
  waiting: number;
  byUser: Record<string, number>;
  /** Waiting requests that each pool could serve (a request may count for several pools). */
  byPool: Record<string, number>;
}

export interface SlotQueueOptions {
  timers?: Timers;
  /**
   * How often the first waiter of each user tries again without being woken: the safety net for slots
   * freed where no notify() reaches this process (another router instance, a crashed one's cleanup).
   */
  recheckMs?: number;
}

interface Waiter {
  user: string;
  pools: readonly string[];
  refusal: unknown;
  /** Asks the waiter to try now (it does only when first in its user's line). */
  wake(): void;
}

export class SlotQueue {
  private readonly waiters: Waiter[] = []; // in arrival order
  private readonly timers: Timers;
  private readonly recheckMs: number;
  // Counts notify() calls, so a slot freed between a refused first try and joining the line is not missed.
  private generation = 0;

  constructor(options: SlotQueueOptions = {}) {
    this.timers = options.timers ?? systemTimers;
    this.recheckMs = options.recheckMs ?? 2000;
  }

  /**
   * Runs `attempt` until it takes a slot: at once when none of the user's requests is waiting, then, in
   * line, whenever notify() says a slot freed (and every `recheckMs`). Rejects with QueueTimeoutError
   * after `timeoutMs`, or with the signal's reason when the client goes away. A slot an attempt took is
   * never dropped: if the deadline or the abort comes while an attempt runs, its slot is still returned,
   * and the caller, checking its signal, gives it back.
   */
  async take<T, R>(attempt: () => Promise<SlotTry<T, R>>, options: WaitOptions<R>): Promise<T> {
    options.signal.throwIfAborted();
    const seen = this.generation;
    let refusal: R | undefined;
    if (!this.headOf(options.user)) {
      const first = await attempt();
      if ('taken' in first) return first.taken;
      refusal = first.refused;
    }
    options.signal.throwIfAborted();
    if (options.timeoutMs <= 0) {
      throw new QueueTimeoutError(refusal ?? (this.headOf(options.user)?.refusal as R), 0);
    }
    return this.waitInLine(attempt, options, refusal, seen);
  }

  /** A slot freed: the first waiter of every user tries again, oldest first. */
  notify(): void {
    this.generation++;
    for (const head of this.heads()) head.wake();
  }

  lengths(): QueueLengths {
    const byUser: Record<string, number> = {};
    const byPool: Record<string, number> = {};
    for (const waiter of this.waiters) {
      byUser[waiter.user] = (byUser[waiter.user] ?? 0) + 1;
      for (const pool of waiter.pools) byPool[pool] = (byPool[pool] ?? 0) + 1;
    }
    return { waiting: this.waiters.length, byUser, byPool };
  }

  private waitInLine<T, R>(
    attempt: () => Promise<SlotTry<T, R>>,
    options: WaitOptions<R>,
    refusal: R | undefined,
    seen: number,
  ): Promise<T> {
    const { user, signal, timeoutMs } = options;
    return new Promise<T>((resolve, reject) => {
      let trying = false;
      let again = false;
      let settled = false;
      // Set when the deadline passes or the client leaves: how to settle once no attempt is running.
      let stopWith: (() => void) | undefined;

      const waiter: Waiter = { user, pools: options.pools, refusal, wake: () => tryAgain() };
      const settle = (how: () => void) => {
        if (settled) return;
        settled = true;
        this.timers.clearTimeout(deadline);
        this.timers.clearTimeout(recheck);
        signal.removeEventListener('abort', onAbort);
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        // Whoever is now first in this user's line gets a try at once.
        this.headOf(user)?.wake();
        how();
      };
      const stop = (how: () => void) => {
        if (settled || stopWith) return;
        stopWith = how;
        if (!trying) settle(how);
      };
      const tryNow = async () => {
        if (settled || stopWith) return;
        if (trying) {
          again = true; // woken during a try: try once more rather than sleep through a freed slot
          return;
        }
        if (this.headOf(user) !== waiter) return;
        trying = true;
        try {
          do {
            again = false;
            const outcome = await attempt();
            if ('taken' in outcome) return settle(() => resolve(outcome.taken));
            waiter.refusal = outcome.refused;
          } while (again && !stopWith);
        } catch (error) {
          return settle(() => reject(error));
        } finally {
          trying = false;
        }
        if (stopWith) settle(stopWith);
      };
      // From timers and wake-ups, which nobody awaits: whatever escapes a try settles this request.
      const tryAgain = () => {
        tryNow().catch((error: unknown) => settle(() => reject(error)));
      };

      const ahead = this.waiters.filter((w) => w.user === user).length;
      this.waiters.push(waiter);
      const deadline = this.timers.setTimeout(
        () =>
          stop(() =>
            reject(new QueueTimeoutError((waiter.refusal ?? this.refusalFor(user)) as R, timeoutMs)),
          ),
        timeoutMs,
      );
      const onAbort = () => stop(() => reject(signal.reason));
      signal.addEventListener('abort', onAbort, { once: true });
      const tick = () => {
        recheck = this.timers.setTimeout(tick, this.recheckMs);
        tryAgain();
      };
      let recheck = this.timers.setTimeout(tick, this.recheckMs);
      options.onWait?.(refusal, ahead);
      // First in line without having tried, or a slot freed since the first try: try now.
      if (refusal === undefined || this.generation !== seen) tryAgain();
    });
  }

  private headOf(user: string): Waiter | undefined {
    return this.waiters.find((waiter) => waiter.user === user);
  }

  private heads(): Waiter[] {
    const seen = new Set<string>();
    return this.waiters.filter((waiter) => !seen.has(waiter.user) && seen.add(waiter.user));
  }

  /** Why the user's line is stuck, for a request that timed out before its own first try. */
  private refusalFor(user: string): unknown {
    return this.waiters.find((waiter) => waiter.user === user && waiter.refusal !== undefined)?.refusal;
  }
}
