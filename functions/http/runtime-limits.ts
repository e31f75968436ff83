/**
 * The limits a runtime sets on one request beyond the config's own, read from `c.env` where the Lambda
 * handler puts them: the invocation's deadline, and how long the front door lets an answer sit silent
 * (API Gateway REST streaming: 5 minutes without a byte). The Node server sets neither: its own timeouts
 * are all there are, and its command path never reads these.
 */
import { formatDuration } from '../core/duration';
import { WebDriverError } from '../core/errors';

/** Epoch ms (real time) by which the answer must be under way, and whose time it is. */
export interface Deadline {
  at: number;
  source: string;
}

/** The longest the front door waits for the next byte of an answer, and what says so. */
export interface SilenceLimit {
  ms: number;
  source: string;
}

/** What the Lambda handler binds for each request (LambdaBindings); absent under the Node server. */
interface RuntimeEnv {
  deadline?: unknown;
  deadlineSource?: unknown;
  silenceLimit?: unknown;
}

/** The runtime's deadline for this request, when it has one (`c.env.deadline`, `c.env.deadlineSource`). */
export function requestDeadline(env: unknown): Deadline | undefined {
  const runtime = env as RuntimeEnv | undefined;
  if (typeof runtime?.deadline !== 'number') return undefined;
  const source = typeof runtime.deadlineSource === 'string' ? runtime.deadlineSource : 'the runtime';
  return { at: runtime.deadline, source };
}

/** How long the front door lets this request's answer sit silent, when it limits that (`c.env.silenceLimit`). */
export function silenceLimit(env: unknown): SilenceLimit | undefined {
  const limit = (env as RuntimeEnv | undefined)?.silenceLimit as Partial<SilenceLimit> | undefined;
  if (typeof limit?.ms !== 'number' || typeof limit.source !== 'string') return undefined;
  return { ms: limit.ms, source: limit.source };
}

/** Kept free before the front door's silence limit, for the `timeout` answer to reach it in time. */
export const SILENCE_MARGIN_MS = 5000;

/** How long a command may wait for the browser's answer, and the W3C error to give when it does not come. */
export interface CommandWait {
  ms: number;
  error: () => WebDriverError;
  /** The longest pause between two pieces of the answer's body, under a front door's silence limit. */
  bodyIdleMs?: number;
}

/**
 * The wait for a forwarded command's answer under a runtime's limits: until the deadline, and at most
 * the front door's silence limit less a margin. Undefined when the runtime sets no limit (the Node server).
 */
export function commandWait(env: unknown, now: number): CommandWait | undefined {
  const deadline = requestDeadline(env);
  const silence = silenceLimit(env);
  if (!deadline && !silence) return undefined;
  const untilDeadline = deadline ? Math.max(0, deadline.at - now) : Number.POSITIVE_INFINITY;
  const untilSilence = silence ? Math.max(0, silence.ms - SILENCE_MARGIN_MS) : Number.POSITIVE_INFINITY;
  const ms = Math.min(untilDeadline, untilSilence);
  const why =
    deadline && untilDeadline <= untilSilence
      ? `the ${formatDuration(ms)} left before ${deadline.source}`
      : `${formatDuration(ms)}: ${silence?.source} ends an answer after ${formatDuration(silence?.ms ?? 0)} without a byte`;
  return {
    ms,
    error: () => new WebDriverError('timeout', `the browser did not answer within ${why}`),
    ...(silence ? { bodyIdleMs: untilSilence } : {}),
  };
}

/**
 * The signal for the request to the browser: the client's, joined with one that fires the wait's W3C
 * `timeout` (undici rejects with the signal's reason). `answered()` stops the timer once the answer's
 * head is in: from then on the body streams and the status is out.
 */
export function waitSignal(
  wait: CommandWait,
  client: AbortSignal,
): { signal: AbortSignal; answered(): void } {
  const timer = new AbortController();
  const handle = setTimeout(() => timer.abort(wait.error()), wait.ms);
  return { signal: AbortSignal.any([client, timer.signal]), answered: () => clearTimeout(handle) };
}
