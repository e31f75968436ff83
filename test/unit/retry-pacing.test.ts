/** The retry pacing the cloud launchers share: jittered, capped backoff and an abortable sleep. */
import { describe, expect, it } from 'vitest';
import { backoffMs, NEVER_ABORTED, realSleep } from '../../functions/adapters/aws/retry-pacing';

const BACKOFF = { firstMs: 500, maxMs: 4000, factor: 2 };

describe('backoffMs', () => {
  it('grows by the factor up to the cap, with the jitter taking it to between half and all of that', () => {
    const ceilings = [500, 1000, 2000, 4000, 4000];
    ceilings.forEach((ceiling, n) => {
      expect(backoffMs(BACKOFF, n, () => 0)).toBe(ceiling / 2);
      expect(backoffMs(BACKOFF, n, () => 0.999_999)).toBe(ceiling);
    });
  });

  it('spreads concurrent retries apart', () => {
    const waits = new Set([0.1, 0.4, 0.7].map((r) => backoffMs(BACKOFF, 2, () => r)));
    expect(waits.size).toBe(3);
  });
});

describe('realSleep', () => {
  it('waits', async () => {
    const started = performance.now();
    await realSleep(30, NEVER_ABORTED);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('rejects with the reason as soon as its signal aborts, and at once when it already has', async () => {
    const controller = new AbortController();
    const sleeping = realSleep(60_000, controller.signal);
    controller.abort(new Error('client left'));
    await expect(sleeping).rejects.toThrow('client left');
    await expect(realSleep(60_000, controller.signal)).rejects.toThrow('client left');
  });
});
