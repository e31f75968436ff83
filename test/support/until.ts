/**
 * The one way tests wait: on a condition, never for a fixed time. Polls until the condition holds (a
 * condition that throws has not held yet), up to a generous deadline, then fails naming what it waited
 * for, with the condition's last error as the cause. For assertions, vitest's own vi.waitFor.
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
