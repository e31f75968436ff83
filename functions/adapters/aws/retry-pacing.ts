/**
 * gridgate's own retry pacing for the cloud APIs it calls (ECS, Kubernetes) and for browsers coming up:
 * jittered, capped backoff and an abortable sleep. The injected clients' own retries come first.
 */

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** For waits on paths that must run to their end (stopping a browser), which no caller may cut short. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

export interface Backoff {
  firstMs: number;
  maxMs: number;
  factor: number;
}

/**
 * The wait before try `n` (0-based) after a failure: growing from firstMs to maxMs, then scaled by a
 * random factor in [0.5, 1) ("equal jitter") so many launches spread out yet none polls in a tight loop.
 */
export function backoffMs(backoff: Backoff, n: number, random: () => number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.firstMs * backoff.factor ** n);
  return Math.round(ceiling * (0.5 + random() / 2));
}
