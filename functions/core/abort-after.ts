/**
 * A signal that aborts after `ms`, as `AbortSignal.timeout(ms)` does, but held strongly until cleared.
 * Node keeps only a weak reference to a timeout signal, and `AbortSignal.any` holds its sources weakly
 * too: a timeout signal passed straight into `AbortSignal.any` can be collected and then never fires
 * (seen as a new session that waited past `timeouts.newSession` for ever once a GC ran meanwhile).
 */
export interface AbortAfter {
  signal: AbortSignal;
  /** Stops the timer; call once the work is done. */
  clear(): void;
}

export function abortAfter(ms: number): AbortAfter {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
  );
  // Like AbortSignal.timeout's timer, it does not keep the process alive by itself.
  timer.unref?.();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
