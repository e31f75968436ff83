import { describe, expect, it } from 'vitest';
import { EndingSessions } from '../../functions/core/ending-sessions';

/** A promise the test settles. */
function held<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Whether `promise` has settled by the time pending callbacks have run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('EndingSessions', () => {
  it('waits for every end of the key under way, a failed one too, and then forgets the key', async () => {
    const ending = new EndingSessions();
    const first = held<string>();
    const second = held<string>();
    expect(ending.track('s1', first.promise)).toBe(first.promise);
    const secondEnd = ending.track('s1', second.promise);
    const settled = ending.settled('s1');

    first.resolve('ended');
    expect(await settledYet(settled)).toBe(false);
    second.reject(new Error('the store refused'));
    await expect(secondEnd).rejects.toThrow('the store refused');
    await expect(settled).resolves.toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(ending.size).toBe(0);
  });

  it('settles at once for a key with no end under way, and keeps ends of other keys apart', async () => {
    const ending = new EndingSessions();
    const other = held<void>();
    const otherEnd = ending.track('s2', other.promise);
    expect(await settledYet(ending.settled('s1'))).toBe(true);
    expect(await settledYet(ending.settled('s2'))).toBe(false);
    other.resolve();
    await otherEnd;
    await expect(ending.settled('s2')).resolves.toBeUndefined();
  });
});
