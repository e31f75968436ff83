/** Each binary's start is worked out once, and one that cannot be keeps the binary as configured. */
import { expect, it } from 'vitest';
import { ChromiumStarts } from '../../../functions/pools/local/chromium-starts';

const REAL = { binary: '/usr/lib/chromium/chromium', flags: ['--a'], env: { B: 'c' } };

it('works out each binary once, however many sessions ask at the same time', async () => {
  const asked: string[] = [];
  const starts = new ChromiumStarts(async (chromium) => {
    asked.push(chromium);
    return REAL;
  });
  const got = await Promise.all([starts.of('/usr/bin/chromium'), starts.of('/usr/bin/chromium')]);
  expect(got).toEqual([REAL, REAL]);
  await starts.of('/opt/other');
  await starts.of('/usr/bin/chromium');
  expect(asked).toEqual(['/usr/bin/chromium', '/opt/other']);
});

it('keeps the configured binary, and says why once, when the wrapper cannot be worked out', async () => {
  const kept: [string, string][] = [];
  let calls = 0;
  const starts = new ChromiumStarts(
    async (chromium) =>
      ++calls === 1 ? 'unshare: not permitted' : Promise.reject(new Error(`${chromium} broke`)),
    (chromium, reason) => kept.push([chromium, reason]),
  );
  const asConfigured = { binary: '/usr/bin/chromium', flags: [], env: {} };
  expect(await starts.of('/usr/bin/chromium')).toEqual(asConfigured);
  expect(await starts.of('/usr/bin/chromium')).toEqual(asConfigured);
  expect(await starts.of('/opt/chromium')).toEqual({ binary: '/opt/chromium', flags: [], env: {} });
  expect(kept).toEqual([
    ['/usr/bin/chromium', 'unshare: not permitted'],
    ['/opt/chromium', 'Error: /opt/chromium broke'],
  ]);
});
