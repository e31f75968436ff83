/**
 * End to end on local pools: a socket session's colour is read as a WebDriver session's, from the colour
 * header and from the subdomain of a base domain the client addressed (its Host, or a proxy's
 * X-Forwarded-Host), and the session runs in its colour's pool.
 */
import puppeteer from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { until } from '../support/until';

let grid: TestGrid;

beforeAll(async () => {
  grid = await startTestGrid({
    colors: { baseDomains: ['grid.example.com'] },
    browsers: { chrome: { aliases: ['chromium'], versions: { stable: { pools: ['baseline', 'green'] } } } },
    pools: {
      baseline: { kind: 'local', maxSessions: 2 },
      green: { kind: 'local', color: 'green', maxSessions: 2 },
    },
  });
});
afterAll(() => grid?.close());
afterEach(async () => {
  await until(() => grid.launcher.running().length === 0, 'every session ended');
});

/** The pool of the one session a Puppeteer client connected with these headers runs in. */
async function poolOfSessionWith(headers: Record<string, string>): Promise<string | undefined> {
  const browser = await puppeteer.connect({
    browserWSEndpoint: `${grid.url.replace(/^http/, 'ws')}/devtools/chrome`,
    headers,
  });
  try {
    const [session] = await grid.deps.sessions.running();
    return session?.pool;
  } finally {
    await browser.disconnect();
  }
}

describe("a socket session's colour", { timeout: 120_000 }, () => {
  it('comes from the subdomain of the host the client addressed, directly or through a proxy', async () => {
    const port = new URL(grid.url).port;
    expect(await poolOfSessionWith({ host: `green.grid.example.com:${port}` })).toBe('green');
    expect(await poolOfSessionWith({ 'x-forwarded-host': 'green.grid.example.com' })).toBe('green');
  });

  it('comes from the colour header, and without one the baseline serves', async () => {
    expect(await poolOfSessionWith({ 'X-Grid-Color': 'green' })).toBe('green');
    expect(await poolOfSessionWith({})).toBe('baseline');
  });
});
