/** The status page's small pieces: the bounded list of recent failures and when "/" answers with the page. */
import { describe, expect, it } from 'vitest';
import { RecentFailures } from '../../functions/http/ui/recent-failures';
import { acceptsHtml } from '../../functions/http/ui/ui-routes';

const failure = (n: number) => ({ at: n, user: 'alice', session: `s${n}`, reason: `reason ${n}` });

describe('RecentFailures', () => {
  it('lists the newest first and keeps only the last few', () => {
    const failures = new RecentFailures(3);
    for (const n of [1, 2, 3, 4, 5]) failures.add(failure(n));
    expect(failures.list().map((f) => f.at)).toEqual([5, 4, 3]);
  });
});

describe('acceptsHtml', () => {
  it('is true for what browsers send and false for WebDriver clients', () => {
    expect(acceptsHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(true);
    expect(acceptsHtml('TEXT/HTML; q=1')).toBe(true);
    expect(acceptsHtml('application/json; charset=utf-8')).toBe(false);
    expect(acceptsHtml('*/*')).toBe(false);
    expect(acceptsHtml(undefined)).toBe(false);
  });
});
