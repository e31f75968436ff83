import { describe, expect, it } from 'vitest';
import { judgeWarmTask, type WarmPolicy } from '../../../functions/core/orphan-decisions';
import { warmPoolTarget, warmTasksToStart } from '../../../functions/pools/ecs/warm-pool-size';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const MINUTE = 60_000;

/** Session starts `minutesAgo` (fractions allowed), one per entry. */
const startsAt = (...minutesAgo: number[]) => minutesAgo.map((m) => NOW - m * MINUTE);

describe('warmPoolTarget', () => {
  it.each([
    { case: 'no demand keeps min', starts: [], min: 1, max: 5, target: 1 },
    { case: 'no demand and min 0 keeps none', starts: [], min: 0, max: 5, target: 0 },
    {
      case: 'the busiest interval counts',
      starts: startsAt(0.1, 0.5, 3.2, 3.4, 3.9),
      min: 0,
      max: 5,
      target: 3,
    },
    {
      case: 'demand above max is capped',
      starts: startsAt(...Array(9).fill(1.5)),
      min: 0,
      max: 4,
      target: 4,
    },
    { case: 'demand below min is raised', starts: startsAt(2.5), min: 2, max: 4, target: 2 },
    {
      case: 'starts older than the window do not count',
      starts: startsAt(10, 10.5, 11, 2),
      min: 0,
      max: 5,
      target: 1,
    },
    {
      case: 'starts in the future (clock skew) do not count',
      starts: [NOW + 5000, NOW + 9000],
      min: 0,
      max: 5,
      target: 0,
    },
  ])('$case', ({ starts, min, max, target }) => {
    expect(warmPoolTarget({ starts, now: NOW, intervalMs: MINUTE, intervals: 10, min, max })).toBe(target);
  });
});

describe('warmTasksToStart', () => {
  const base = { target: 4, idle: 0, starting: 0, maxSessions: 10, inUse: 0, perPass: 10 };
  it.each([
    { case: 'an empty pool is filled to the target', state: {}, count: 4 },
    { case: 'idle and starting tasks count as there', state: { idle: 1, starting: 2 }, count: 1 },
    { case: 'a full pool starts none', state: { idle: 4 }, count: 0 },
    { case: 'above the target (demand fell) starts none', state: { idle: 6 }, count: 0 },
    { case: 'never past the free capacity', state: { inUse: 8 }, count: 2 },
    { case: 'slots in use and idle tasks share the capacity', state: { inUse: 7, idle: 2 }, count: 1 },
    { case: 'a pool at capacity starts none', state: { inUse: 10 }, count: 0 },
    { case: 'at most perPass a pass', state: { target: 20, maxSessions: 50, perPass: 10 }, count: 10 },
  ])('$case', ({ state, count }) => {
    expect(warmTasksToStart({ ...base, ...state })).toBe(count);
  });
});

describe('judgeWarmTask', () => {
  const policy: WarmPolicy = { idleTtlMs: 15 * MINUTE, startMs: 2 * MINUTE };
  const unclaimed = (ageMinutes: number) => ({
    launchedAt: NOW - ageMinutes * MINUTE,
    sessionKey: undefined,
    warm: 'unclaimed' as const,
  });
  const idle = (readyMinutesAgo: number) => ({
    state: 'idle' as const,
    readyAt: NOW - readyMinutesAgo * MINUTE,
  });

  it('keeps an idle task within its TTL, however old the task', () => {
    expect(judgeWarmTask(unclaimed(600), idle(14), policy, NOW)).toEqual({ action: 'keep', why: 'idle' });
  });

  it('stops an idle task past its TTL', () => {
    expect(judgeWarmTask(unclaimed(20), idle(16), policy, NOW)).toEqual({
      action: 'stop',
      reason: 'warm expired',
    });
  });

  it('stops every unclaimed task of a pool that keeps none any more', () => {
    const off = { ...policy, idleTtlMs: undefined };
    expect(judgeWarmTask(unclaimed(1), idle(0), off, NOW)).toEqual({
      action: 'stop',
      reason: 'warm expired',
    });
    expect(judgeWarmTask(unclaimed(1), undefined, off, NOW)).toEqual({
      action: 'stop',
      reason: 'warm expired',
    });
  });

  it('asks to register a young task without an entry', () => {
    expect(judgeWarmTask(unclaimed(1), undefined, policy, NOW)).toEqual({ action: 'register' });
  });

  it('stops a task without an entry once the start window has passed', () => {
    expect(judgeWarmTask(unclaimed(3), undefined, policy, NOW)).toEqual({
      action: 'stop',
      reason: 'warm never ready',
    });
  });

  it('judges a task claimed by its entry (not tagged yet) by the claiming session from the claim on', () => {
    const entry = {
      state: 'claimed' as const,
      readyAt: NOW - 30 * MINUTE,
      session: 's9',
      claimedAt: NOW - 5000,
    };
    expect(judgeWarmTask(unclaimed(40), entry, policy, NOW)).toEqual({
      action: 'session',
      facts: { launchedAt: NOW - 5000, sessionKey: 's9' },
    });
  });

  it('judges a task tagged claimed by its tags, entry or not', () => {
    const tagged = { launchedAt: NOW - 1000, sessionKey: 's7', warm: 'claimed' as const };
    expect(judgeWarmTask(tagged, undefined, policy, NOW)).toEqual({ action: 'session', facts: tagged });
  });
});
