/**
 * RecentResults: callers asking at once share one piece of work, a shareable result is kept for a while
 * after it settles, and neither a result that may not be shared nor a failure is given to anyone else.
 */
import { describe, expect, it } from 'vitest';
import { RecentResults } from '../../../functions/pools/selenium-node/recent-results';

describe('RecentResults', () => {
  it('shares one piece of work among callers at once, and its result for keepMs after it settles', async () => {
    let now = 0;
    let runs = 0;
    const recent = new RecentResults<string>(2000, { now: () => now });
    const work = async () => `result ${++runs}`;
    const all = () => recent.get('stream', work, () => true);
    expect(await Promise.all([all(), all(), all()])).toEqual(['result 1', 'result 1', 'result 1']);
    now = 1999;
    expect(await all()).toBe('result 1');
    now = 2000;
    expect(await all()).toBe('result 2');
    expect(await recent.get('other', work, () => true)).toBe('result 3');
  });

  it('gives a result that may not be shared to its own caller only, and keeps no failure', async () => {
    let runs = 0;
    const recent = new RecentResults<number>(2000, { now: () => 0 });
    const own = () =>
      recent.get(
        'stream',
        async () => ++runs,
        () => false,
      );
    expect(await Promise.all([own(), own()])).toEqual([1, 2]);
    await expect(
      recent.get(
        'broken',
        async () => {
          throw new Error('throttled');
        },
        () => true,
      ),
    ).rejects.toThrow('throttled');
    expect(
      await recent.get(
        'broken',
        async () => 7,
        () => true,
      ),
    ).toBe(7);
  });
});
