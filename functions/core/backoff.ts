/**
 * The one backoff gridgate waits by between tries: a ceiling growing by a factor from a first wait to a
 * cap, with jitter so that callers failing together (launches, racing DynamoDB transactions) spread out.
 */

export interface Backoff {
  firstMs: number;
  maxMs: number;
  factor: number;
  /**
   * How much of the ceiling is random: `equal` (the default) waits between half and all of it, so no
   * caller polls in a tight loop; `full` anywhere from 0 (racing transactions clear fastest so); `none`
   * the ceiling itself (one retry schedule of one's own, nobody to spread from).
   */
  jitter?: 'equal' | 'full' | 'none';
}

/** The wait before try `n` (0-based) after a failure. */
export function backoffMs(backoff: Backoff, n: number, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.firstMs * backoff.factor ** n);
  switch (backoff.jitter ?? 'equal') {
    case 'none':
      return ceiling;
    case 'full':
      return Math.round(ceiling * random());
    case 'equal':
      return Math.round(ceiling * (0.5 + random() / 2));
  }
}
