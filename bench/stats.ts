/** Summary statistics for latency samples: median and percentiles, interpolated between ranks. */

export interface Summary {
  count: number;
  min: number;
  median: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/**
 * The q-quantile (0 ≤ q ≤ 1) of ascending `sorted` values, linearly interpolated between the two
 * nearest ranks (Hyndman & Fan type 7, what numpy and R use by default).
 */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const low = sorted[below] as number;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return low + (high - low) * (position - below);
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    count: sorted.length,
    min: sorted[0] ?? Number.NaN,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.length ? total / sorted.length : Number.NaN,
  };
}

export const median = (samples: readonly number[]): number => summarize(samples).median;

/**
 * The median with a confidence interval for it that holds whatever the distribution: the k-th smallest and
 * k-th largest values, k the largest for which the binomial(n, ½) tails leave at least `wanted` between them
 * (for 10 samples the 2nd and 9th, 97.9 %). Too few samples for `wanted` give the range, with the confidence
 * it has (4 samples: 87.5 %).
 */
export interface MedianInterval {
  median: number;
  low: number;
  high: number;
  /** The probability that the interval holds the true median. */
  confidence: number;
}

export function medianInterval(samples: readonly number[], wanted = 0.95): MedianInterval {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  // below[i]: P(fewer than i + 1 of n samples fall under the true median), i.e. P(B ≤ i).
  const below: number[] = [];
  let term = 0.5 ** n;
  let total = 0;
  for (let i = 0; i <= n; i++) {
    total += term;
    below.push(total);
    term = (term * (n - i)) / (i + 1);
  }
  // [x(k), x(n+1−k)] misses the median when fewer than k samples fall on either side of it.
  const coverage = (k: number) => 1 - 2 * (below[k - 1] as number);
  let k = 1;
  while (k + 1 <= n / 2 && coverage(k + 1) >= wanted) k++;
  return {
    median: quantile(sorted, 0.5),
    low: sorted[k - 1] ?? Number.NaN,
    high: sorted[n - k] ?? Number.NaN,
    confidence: n > 1 ? coverage(k) : 0,
  };
}
