/**
 * Everything the benchmark starts is registered here, so that every chromium and chromedriver is
 * gone when it exits: stopped in order on success, errors, Ctrl-C and SIGTERM, and killed as a
 * last resort (synchronously, SIGKILL) if the process exits some other way.
 */

export interface Stoppable {
  /** Stops it properly: ends sessions, waits for the processes to go. */
  stop(): Promise<void>;
  /** Last resort from the 'exit' handler: synchronous, SIGKILL. */
  kill(): void;
}

const running = new Set<Stoppable>();
let stopping: Promise<void> | undefined;

/** Registers something that must not outlive the benchmark; call the result once it has stopped. */
export function track(thing: Stoppable): () => void {
  running.add(thing);
  return () => running.delete(thing);
}

/** True once stopping has begun (after a signal or the deadline, errors in flight are its echo). */
export const isStopping = (): boolean => stopping !== undefined;

/** Stops everything still registered, newest first; safe to call more than once. */
export function stopEverything(): Promise<void> {
  stopping ??= (async () => {
    for (const thing of [...running].reverse()) {
      try {
        await thing.stop();
      } catch (error) {
        console.error(`bench: stopping failed, killing instead: ${(error as Error).message}`);
        thing.kill();
      }
      running.delete(thing);
    }
  })();
  return stopping;
}

/** Ctrl-C and SIGTERM stop everything and exit; a bare exit kills what is left. */
export function installExitHandlers(): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    // `on`, not `once`: Ctrl-C reaches this process twice (from the terminal and relayed by tsx), and
    // a signal without a handler would end the process before the browsers are stopped.
    process.on(signal, () => {
      if (stopping) return;
      console.error(`\nbench: ${signal}, stopping browsers…`);
      const exit = () => process.exit(code);
      stopEverything().then(exit, exit);
    });
  }
  process.once('exit', () => {
    for (const thing of running) thing.kill();
  });
}
