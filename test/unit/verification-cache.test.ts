import { describe, expect, it } from 'vitest';
import { VerificationCache } from '../../functions/adapters/htpasswd/verification-cache';
import { FixedClock } from '../support/fakes';

const TTL = 60_000;

/** A password check that counts its calls and answers what the test says. */
function counting(answer = true) {
  const check = {
    calls: 0,
    run: async () => {
      check.calls++;
      return answer;
    },
  };
  return check;
}

describe('VerificationCache', () => {
  it('remembers a successful check until it expires', async () => {
    const clock = new FixedClock();
    const cache = new VerificationCache(clock, TTL);
    const check = counting(true);
    expect(await cache.verify('alice', 'pw', check.run)).toBe(true);
    clock.advance(TTL - 1);
    expect(await cache.verify('alice', 'pw', check.run)).toBe(true);
    expect(check.calls).toBe(1);
    clock.advance(1);
    expect(await cache.verify('alice', 'pw', check.run)).toBe(true);
    expect(check.calls).toBe(2);
  });

  it('remembers a wrong password for the failure time, counted from when it was known', async () => {
    const clock = new FixedClock();
    const cache = new VerificationCache(clock, TTL, 30_000);
    const check = counting(false);
    expect(await cache.verify('alice', 'wrong', check.run)).toBe(false);
    clock.advance(29_999);
    expect(await cache.verify('alice', 'wrong', check.run)).toBe(false);
    expect(check.calls).toBe(1);
    clock.advance(1);
    expect(await cache.verify('alice', 'wrong', check.run)).toBe(false);
    expect(check.calls).toBe(2);
    // Another password is another check: the remembered failure is of this password only.
    const right = counting(true);
    expect(await cache.verify('alice', 'right', right.run)).toBe(true);
    expect(right.calls).toBe(1);
  });

  it('forgets a refused check at once even with a failure time, so the next try is checked', async () => {
    const cache = new VerificationCache(new FixedClock(), TTL, 30_000);
    await expect(cache.verify('alice', 'pw', async () => Promise.reject(new Error('busy')))).rejects.toThrow(
      'busy',
    );
    expect(cache.size).toBe(0);
  });

  it('does not remember a failed check without a failure time', async () => {
    const cache = new VerificationCache(new FixedClock(), TTL);
    const check = counting(false);
    expect(await cache.verify('alice', 'wrong', check.run)).toBe(false);
    expect(await cache.verify('alice', 'wrong', check.run)).toBe(false);
    expect(check.calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('forgets a check that threw, and passes the error on', async () => {
    const cache = new VerificationCache(new FixedClock(), TTL);
    await expect(cache.verify('alice', 'pw', async () => Promise.reject(new Error('disk')))).rejects.toThrow(
      'disk',
    );
    expect(cache.size).toBe(0);
  });

  it('lets concurrent requests with the same credentials share one check', async () => {
    const cache = new VerificationCache(new FixedClock(), TTL);
    const check = counting(false);
    const answers = await Promise.all([1, 2, 3].map(() => cache.verify('alice', 'pw', check.run)));
    expect(answers).toEqual([false, false, false]);
    expect(check.calls).toBe(1);
  });

  it('keeps user and password apart: "a:b" + "c" is not "a" + "b:c"', async () => {
    const cache = new VerificationCache(new FixedClock(), TTL);
    await cache.verify('a:b', 'c', counting(true).run);
    const other = counting(false);
    expect(await cache.verify('a', 'b:c', other.run)).toBe(false);
    expect(other.calls).toBe(1);
  });

  it('forgets everything when cleared', async () => {
    const cache = new VerificationCache(new FixedClock(), TTL);
    await cache.verify('alice', 'pw', counting(true).run);
    cache.clear();
    const check = counting(false);
    expect(await cache.verify('alice', 'pw', check.run)).toBe(false);
    expect(check.calls).toBe(1);
  });

  it('drops expired entries once it holds many', async () => {
    const clock = new FixedClock();
    const cache = new VerificationCache(clock, TTL);
    for (let i = 0; i < 1024; i++) await cache.verify(`user${i}`, 'pw', counting(true).run);
    expect(cache.size).toBe(1024);
    clock.advance(TTL);
    await cache.verify('late', 'pw', counting(true).run);
    expect(cache.size).toBe(1);
  });
});
