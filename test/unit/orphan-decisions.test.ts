import { describe, expect, it } from 'vitest';
import {
  isSpotReclaim,
  isStaleSlot,
  judgeRecord,
  judgeTask,
  type OrphanPolicy,
  type TaskFacts,
} from '../../functions/core/orphan-decisions';
import { sampleRecord } from '../contract/store-samples';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const policy: OrphanPolicy = { newSessionMs: 60 * SECOND, maxAgeMs: 60 * MINUTE, graceMs: 30 * SECOND };
// The longest a task can be in use: a launch of up to newSession, then a session of up to maxAge.
const LONGEST = policy.newSessionMs + policy.maxAgeMs + policy.graceMs;

function task(ageMs: number | undefined): TaskFacts {
  return { launchedAt: ageMs === undefined ? undefined : NOW - ageMs, sessionKey: 's1' };
}

/** A task that carries gridgate's startedBy but none of its tags. */
function untagged(ageMs: number): TaskFacts {
  return { launchedAt: NOW - ageMs, sessionKey: undefined };
}

function running(ageMs: number, maxAgeMs = policy.maxAgeMs) {
  return sampleRecord('s1', { createdAt: NOW - ageMs, lastActivityAt: NOW, maxAgeMs });
}

describe('judgeTask', () => {
  it('keeps the task of a live session within its maximum age', () => {
    expect(judgeTask(task(10 * MINUTE), running(9 * MINUTE), policy, NOW)).toEqual({
      action: 'keep',
      why: 'live session',
    });
  });

  it('stops the task of a session past its own maximum age and ends that session', () => {
    const record = running(10 * MINUTE, 10 * MINUTE);
    expect(judgeTask(task(11 * MINUTE), record, policy, NOW)).toEqual({
      action: 'stop',
      reason: 'max age',
      endSession: true,
    });
  });

  it('stops a task whose session has ended, however young', () => {
    const ended = { ...running(MINUTE), endedAt: NOW - SECOND, endReason: 'deleted' as const };
    expect(judgeTask(task(MINUTE), ended, policy, NOW)).toEqual({
      action: 'stop',
      reason: 'session ended',
      endSession: false,
    });
  });

  it('keeps a task without a record while its session may still be created', () => {
    expect(judgeTask(task(30 * SECOND), undefined, policy, NOW)).toEqual({
      action: 'keep',
      why: 'being created',
    });
    expect(judgeTask(task(policy.newSessionMs + policy.graceMs), undefined, policy, NOW)).toMatchObject({
      action: 'keep',
    });
  });

  it('stops a task that has no record once the new-session timeout and the grace have passed', () => {
    expect(judgeTask(task(policy.newSessionMs + policy.graceMs + 1), undefined, policy, NOW)).toEqual({
      action: 'stop',
      reason: 'no session',
      endSession: false,
    });
  });

  it('stops any task older than the longest session it could hold, ending a record it still has', () => {
    expect(judgeTask(task(LONGEST + 1), undefined, policy, NOW)).toEqual({
      action: 'stop',
      reason: 'max age',
      endSession: false,
    });
    // A record written with a longer maximum age than the config now allows.
    const record = running(LONGEST - SECOND, 2 * LONGEST);
    expect(judgeTask(task(LONGEST + 1), record, policy, NOW)).toEqual({
      action: 'stop',
      reason: 'max age',
      endSession: true,
    });
  });

  it('judges a task without gridgate tags by its age alone', () => {
    expect(judgeTask(untagged(10 * MINUTE), undefined, policy, NOW)).toEqual({
      action: 'keep',
      why: 'untagged',
    });
    expect(judgeTask(untagged(LONGEST + 1), undefined, policy, NOW)).toEqual({
      action: 'stop',
      reason: 'max age',
      endSession: false,
    });
  });

  it('keeps a task whose age is unknown unless its record says otherwise', () => {
    expect(judgeTask(task(undefined), undefined, policy, NOW)).toEqual({
      action: 'keep',
      why: 'age unknown',
    });
    expect(judgeTask(task(undefined), running(2 * MINUTE, MINUTE), policy, NOW)).toMatchObject({
      action: 'stop',
      reason: 'max age',
    });
  });
});

describe('judgeRecord', () => {
  it('keeps a record whose task still runs (the listing had not caught up)', () => {
    expect(judgeRecord(running(MINUTE), { state: 'running' }, NOW)).toEqual({ action: 'keep' });
  });

  it('stops the task of a record past its maximum age even when only DescribeTasks found it', () => {
    expect(judgeRecord(running(2 * MINUTE, MINUTE), { state: 'running' }, NOW)).toEqual({
      action: 'stop',
      reason: 'max age',
      endSession: true,
    });
  });

  it('ends a record whose task is gone or stopped as "browser exited"', () => {
    expect(judgeRecord(running(MINUTE), { state: 'missing' }, NOW)).toEqual({
      action: 'end',
      reason: 'browser exited',
    });
    expect(
      judgeRecord(running(MINUTE), { state: 'stopped', stopCode: 'EssentialContainerExited' }, NOW),
    ).toEqual({ action: 'end', reason: 'browser exited' });
  });

  it('ends a record whose task Fargate Spot took back as "reclaimed"', () => {
    for (const stopCode of ['SpotInterruption', 'TerminationNotice']) {
      expect(judgeRecord(running(MINUTE), { state: 'stopped', stopCode }, NOW)).toEqual({
        action: 'end',
        reason: 'reclaimed',
      });
    }
  });
});

describe('isSpotReclaim', () => {
  it('knows the stop codes of a task its platform took back, and only those', () => {
    expect(isSpotReclaim('SpotInterruption')).toBe(true);
    expect(isSpotReclaim('TerminationNotice')).toBe(true);
    expect(isSpotReclaim('UserInitiated')).toBe(false);
    expect(isSpotReclaim(undefined)).toBe(false);
  });
});

describe('isStaleSlot', () => {
  const policy = { newSessionMs: 60_000, maxAgeMs: 3_600_000, graceMs: 60_000 };
  const now = 1_000_000_000;
  const slot = (key: string, ageMs: number) => ({ key, pool: 'p', user: 'u', acquiredAt: now - ageMs });

  it.each([
    ['no session, older than a launch plus grace', slot('a', 120_001), new Set<string>(), true],
    ['no session, exactly at the limit', slot('a', 120_000), new Set<string>(), false],
    ['no session yet, still within a launch', slot('a', 30_000), new Set<string>(), false],
    ['a running session holds it, however old', slot('a', 10 * 3_600_000), new Set(['a']), false],
  ])('%s → %s', (_, held, running, stale) => {
    expect(isStaleSlot(held, running, policy, now)).toBe(stale);
  });
});
