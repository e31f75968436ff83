import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../functions/core/duration';

describe('parseDuration', () => {
  it.each([
    ['250ms', 250],
    ['90s', 90_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['2m30s500ms', 150_500],
    ['1.5s', 1500],
    ['0.25h', 900_000],
    ['0s', 0],
    ['1m1m', 120_000],
  ])('reads "%s" as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    [''],
    ['5'],
    ['m'],
    ['5 m'],
    [' 5m'],
    ['5m '],
    ['5mx'],
    ['x5m'],
    ['-5s'],
    ['5d'],
    ['1h 30m'],
    ['.5s'],
    ['5M'],
  ])('refuses "%s"', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('gives the same answer when called again (no state left between calls)', () => {
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('bad')).toBeUndefined();
    expect(parseDuration('1h30m')).toBe(5_400_000);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [250, '250ms'],
    [1000, '1s'],
    [90_000, '1m30s'],
    [300_000, '5m'],
    [3_600_000, '1h'],
    [5_400_000, '1h30m'],
    [3_661_000, '1h1m1s'],
    [59_999, '1m'],
  ])('writes %i ms as "%s"', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('writes what parseDuration reads back', () => {
    for (const ms of [1000, 61_000, 3_600_000, 86_399_000]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
