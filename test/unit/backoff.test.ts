/** The one backoff: a capped, growing ceiling and the three ways of jittering it. */
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../functions/core/backoff';

const GROWING = { firstMs: 50, maxMs: 1000, factor: 2 };
const CEILINGS = [50, 100, 200, 400, 800, 1000, 1000];

describe('backoffMs', () => {
  it('with equal jitter (the default) waits between half and all of the ceiling', () => {
    CEILINGS.forEach((ceiling, n) => {
      expect(backoffMs(GROWING, n, () => 0)).toBe(ceiling / 2);
      expect(backoffMs(GROWING, n, () => 0.999_999)).toBe(ceiling);
    });
  });

  it('with full jitter waits anywhere from nothing to the ceiling', () => {
    const full = { ...GROWING, jitter: 'full' as const };
    CEILINGS.forEach((ceiling, n) => {
      expect(backoffMs(full, n, () => 0)).toBe(0);
      expect(backoffMs(full, n, () => 0.5)).toBe(ceiling / 2);
      expect(backoffMs(full, n, () => 0.999_999)).toBe(ceiling);
    });
  });

  it('without jitter waits the ceiling itself, whatever chance says', () => {
    const none = { ...GROWING, jitter: 'none' as const };
    CEILINGS.forEach((ceiling, n) => {
      expect(backoffMs(none, n, () => 0.3)).toBe(ceiling);
    });
  });
});
