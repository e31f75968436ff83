/**
 * A background task run every few seconds (an expiry sweep, a file poll, the stale-slot sweep): one run
 * at a time, and a run that fails is logged and tried again at the next tick. A rejection nobody
 * catches in a timer ends the Node process, taking the command path (which needs no store) with it.
 */
import type { Logger } from './ports';

export interface PeriodicTask {
  /** No further run starts; one under way finishes on its own. */
  stop(): void;
}

/**
 * Runs `run` every `everyMs` (the timer does not hold the process open). A tick that comes while the
 * last run is still going is skipped, so a slow store does not pile up sweeps.
 */
export function runEvery(task: string, everyMs: number, run: () => unknown, logger: Logger): PeriodicTask {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    Promise.resolve()
      .then(run)
      .then(
        () => {
          running = false;
        },
        (error: unknown) => {
          running = false;
          logger.log('BACKGROUND_TASK_FAILED', { task, error: String(error) });
        },
      );
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
