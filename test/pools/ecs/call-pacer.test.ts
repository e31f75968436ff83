/** CallPacer: evenly spaced turns at the rate asked, and a refusal, not a longer queue, past the longest wait. */
import { describe, expect, it } from 'vitest';
import { CallPacer } from '../../../functions/pools/ecs/call-pacer';

describe('CallPacer', () => {
  it('gives turns evenly spaced at the rate, counting from now once it has been idle', () => {
    let now = 10_000;
    const pacer = new CallPacer({ perSecond: 4, maxWaitMs: 1000 }, { now: () => now });
    expect([pacer.turn(), pacer.turn(), pacer.turn()]).toEqual([0, 250, 500]);
    now += 300;
    expect(pacer.turn()).toBe(450);
    now += 5000;
    expect(pacer.turn()).toBe(0);
  });

  it('refuses a turn that would come past the longest wait, and gives none away in refusing', () => {
    const pacer = new CallPacer({ perSecond: 2, maxWaitMs: 1000 }, { now: () => 0 });
    expect([pacer.turn(), pacer.turn(), pacer.turn()]).toEqual([0, 500, 1000]);
    expect(pacer.turn()).toBeUndefined();
    expect(pacer.turn()).toBeUndefined();
  });

  it('never waits at an unbounded rate', () => {
    const pacer = new CallPacer({ perSecond: Number.POSITIVE_INFINITY, maxWaitMs: 0 }, { now: () => 0 });
    expect([pacer.turn(), pacer.turn()]).toEqual([0, 0]);
  });
});
