/**
 * The one way tests wait: on a condition, never for a fixed time. `until` polls a condition until it
 * holds (a condition that throws has not held yet), up to a generous deadline, then fails naming what it
 * waited for, with the condition's last error as the cause; `eventually` is the same wait for a check
 * written as assertions, which holds once it stops throwing.
 */
export interface UntilOptions {
  /** @default 30 s: generous, since a shared machine under load is slow, never wrong. */
  timeoutMs?: number;
  /** @default 50 ms */
  intervalMs?: number;
}

export async function until<T>(
  condition: () => T | Promise<T>,
  what: string,
  { timeoutMs = 30_000, intervalMs = 50 }: UntilOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Waits until `check` passes (it throws until then); past the deadline its last failure is the error,
 * so the test reports the assertion that never held.
 */
export async function eventually(
  check: () => void | Promise<void>,
  timeoutMs = 30_000,
  intervalMs = 20,
): Promise<void> {
  const passes = async () => {
    await check();
    return true;
  };
  try {
    await until(passes, 'the check passes', { timeoutMs, intervalMs });
  } catch (timedOut) {
    throw (timedOut as Error).cause ?? timedOut;
  }
}
