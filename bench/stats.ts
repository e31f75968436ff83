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
