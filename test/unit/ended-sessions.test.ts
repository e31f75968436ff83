import { describe, expect, it } from 'vitest';
import { describeEnd, EndedSessions } from '../../functions/core/ended-sessions';

describe('EndedSessions', () => {
  it('never holds more than its capacity, however many sessions end', () => {
    const ended = new EndedSessions(1000);
    for (let i = 0; i < 100_000; i++) {
      ended.remember(`session-${i}`, { reason: 'deleted' });
      expect(ended.size).toBeLessThanOrEqual(1000);
    }
    expect(ended.size).toBe(1000);
    expect(ended.recall('session-99999')).toEqual({ reason: 'deleted' });
    expect(ended.recall('session-99000')).toEqual({ reason: 'deleted' });
    expect(ended.recall('session-98999')).toBeUndefined();
    expect(ended.recall('session-0')).toBeUndefined();
  });

  it('forgets the oldest first, counting a session remembered again as new', () => {
    const ended = new EndedSessions(2);
    ended.remember('a', { reason: 'deleted' });
    ended.remember('b', { reason: 'deleted' });
    ended.remember('a', { reason: 'max age', maxAgeMs: 60_000 });
    ended.remember('c', { reason: 'deleted' });
    expect(ended.recall('b')).toBeUndefined();
    expect(ended.recall('a')).toEqual({ reason: 'max age', maxAgeMs: 60_000 });
    expect(ended.recall('c')).toEqual({ reason: 'deleted' });
  });

  it('refuses a capacity that could not hold a session', () => {
    expect(() => new EndedSessions(0)).toThrow(/positive integer/);
  });
});

describe('describeEnd', () => {
  it.each([
    [{ reason: 'deleted' as const }, 'it was deleted'],
    [{ reason: 'idle timeout' as const, idleTimeoutMs: 300_000 }, 'no command for 5m (idle timeout)'],
    [{ reason: 'idle timeout' as const }, 'no command within its idle timeout'],
    [{ reason: 'max age' as const, maxAgeMs: 5_400_000 }, 'it reached its maximum age of 1h30m'],
    [{ reason: 'server shutdown' as const }, 'the grid shut down'],
    [{ reason: 'browser exited' as const }, 'the browser exited or crashed'],
    [undefined, 'the browser exited or crashed'],
  ])('says %j ended as "%s"', (end, text) => {
    expect(describeEnd(end)).toBe(text);
  });
});
