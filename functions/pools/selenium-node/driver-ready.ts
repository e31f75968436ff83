/**
 * Waits until a cloud browser's WebDriver endpoint says it takes new sessions (GET /status answers
 * value.ready true, W3C WebDriver §8.3): a RUNNING task or pod may still be starting its Selenium node for
 * seconds.
 */
import { type Dispatcher, getGlobalDispatcher, request } from 'undici';
import type { Sleep } from '../../adapters/aws/retry-pacing';
import { abortAfter } from '../../core/abort-after';
import type { Clock } from '../../core/ports';

export interface DriverWait {
  /** host:port of the WebDriver endpoint. */
  address: string;
  signal: AbortSignal;
  /** Longest the endpoint may take to become ready once its task is RUNNING. */
  timeoutMs: number;
  agent?: Dispatcher;
  sleep: Sleep;
  clock: Clock;
}

// A status answer is instant once the node listens; a longer silence is a dead address, so try again.
const TRY_TIMEOUT_MS = 2000;
const POLL_MS = 500;

/** The endpoint never answered ready in time; each launcher reports it as its own `driver` failure. */
export class DriverNotReady extends Error {
  constructor(readonly details: string) {
    super(details);
    this.name = 'DriverNotReady';
  }
}

export async function waitForDriver(wait: DriverWait): Promise<void> {
  const deadline = wait.clock.now() + wait.timeoutMs;
  for (;;) {
    const answer = await driverStatus(wait);
    if (answer === 'ready') return;
    if (wait.clock.now() >= deadline) {
      throw new DriverNotReady(
        `http://${wait.address}/status was not ready within ${Math.round(wait.timeoutMs / 1000)} s (last answer: ${answer})`,
      );
    }
    await wait.sleep(POLL_MS, wait.signal);
  }
}

/**
 * One /status: 'ready', or what the endpoint said instead (for messages). Rejects only on abort. Also the
 * check a claimed warm task gets: an idle task may have died since the cleanup registered it.
 */
export async function driverStatus({
  address,
  signal,
  agent,
}: Pick<DriverWait, 'address' | 'signal' | 'agent'>): Promise<string> {
  signal.throwIfAborted();
  const tryTimeout = abortAfter(TRY_TIMEOUT_MS);
  try {
    const response = await request(`http://${address}/status`, {
      dispatcher: agent ?? getGlobalDispatcher(),
      signal: AbortSignal.any([signal, tryTimeout.signal]),
      headers: { accept: 'application/json' },
    });
    const text = await response.body.text();
    let ready: unknown;
    try {
      ready = (JSON.parse(text) as { value?: { ready?: unknown } }).value?.ready;
    } catch {
      return `${response.statusCode} with no JSON`;
    }
    return ready === true ? 'ready' : `${response.statusCode}, ready: ${String(ready)}`;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const cause = (error as Error & { cause?: Error }).cause;
    return (cause as Error | undefined)?.message ?? (error as Error).message;
  } finally {
    tryTimeout.clear();
  }
}
