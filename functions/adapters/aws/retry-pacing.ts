/**
 * gridgate's own retry pacing for the cloud APIs it calls (ECS, Kubernetes) and for browsers coming up:
 * jittered, capped backoff (core/backoff.ts) and an abortable sleep. The injected clients' own retries come first.
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

// The one backoff (core/backoff.ts), here with the sleep the launchers wait it out with.
export { type Backoff, backoffMs } from '../../core/backoff';
