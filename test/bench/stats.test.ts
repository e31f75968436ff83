/** The benchmark's interval for a median: order statistics, distribution-free. */
import { describe, expect, it } from 'vitest';
import { medianInterval } from '../../bench/stats';

describe('medianInterval', () => {
  it('takes the 2nd and 9th of 10 values, a 97.9 % interval', () => {
    const interval = medianInterval([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]);
    expect(interval).toMatchObject({ median: 5.5, low: 2, high: 9 });
    expect(interval.confidence).toBeCloseTo(1 - 22 / 1024, 6);
  });

  it('gives the range of too few values, with the confidence it has', () => {
    const interval = medianInterval([4, 1, 3, 2]);
    expect(interval).toMatchObject({ median: 2.5, low: 1, high: 4 });
    expect(interval.confidence).toBe(0.875);
  });

  it('narrows as the samples grow: 30 values give the 10th and 21st', () => {
    const values = Array.from({ length: 30 }, (_, i) => i + 1);
    const interval = medianInterval(values);
    expect([interval.low, interval.high]).toEqual([10, 21]);
    expect(interval.confidence).toBeGreaterThanOrEqual(0.95);
  });
});
