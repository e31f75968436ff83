/**
 * gridgate's own retry pacing for the ECS API: jittered, capped backoff and an abortable sleep, plus which
 * SDK errors are worth another try (throttling, no capacity). The injected client's own retries come first.
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

interface SdkErrorLike {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $retryable?: { throttling?: boolean };
}

const THROTTLING_NAMES = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'RequestLimitExceeded',
]);

/** ECS answers a request over its token bucket with ThrottlingException (HTTP 400) or a 429. */
export function isThrottling(error: unknown): boolean {
  const sdk = error as SdkErrorLike | undefined;
  return (
    THROTTLING_NAMES.has(sdk?.name ?? '') ||
    sdk?.$retryable?.throttling === true ||
    sdk?.$metadata?.httpStatusCode === 429
  );
}

// "Capacity is unavailable at this time. Please try again later or in a different availability zone"
// (RunTask failures[] reason, or an exception's message), and the "RESOURCE:FARGATE" family of reasons.
const NO_CAPACITY = /capacity is unavailable|insufficient capacity|no capacity|RESOURCE:FARGATE/i;

/** A RunTask failure reason or error that says Fargate (or Fargate Spot) has no capacity right now. */
export function isNoCapacity(reasonOrError: unknown): boolean {
  if (typeof reasonOrError === 'string') return NO_CAPACITY.test(reasonOrError);
  const sdk = reasonOrError as SdkErrorLike | undefined;
  return NO_CAPACITY.test(sdk?.message ?? '');
}

/** A StopTask answer meaning there is nothing (left) to stop: an unknown or already-gone task. */
export function isTaskGone(error: unknown): boolean {
  const sdk = error as SdkErrorLike | undefined;
  return (
    (sdk?.name === 'InvalidParameterException' &&
      /task (was )?not found|referenced task/i.test(sdk.message ?? '')) ||
    sdk?.name === 'ResourceNotFoundException'
  );
}
