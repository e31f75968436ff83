/**
 * End to end on real Chromium: Selenium Grid 4's se:timeZone and se:screenResolution on a local pool that
 * keeps a browser warm. The session's pages see the asked zone (Intl and the clock's offset), and its window
 * and screen have the asked size, so it cannot have taken the warm browser, which has neither; a session
 * asking nothing still takes the warm one and sees the machine's zone; values no browser could take are
 * refused before anything starts.
 */
import { Builder, type WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumVersion } from '../../../../functions/pools/local/ensure-chromium';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { until } from '../../../support/until';

const TEST_MS = 120_000;

let grid: TestGrid;

beforeAll(async () => {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  grid = await startTestGrid({
    browsers: { chrome: { defaultVersion: version, versions: { [version]: { pools: ['local'] } } } },
    pools: { local: { kind: 'local', maxSessions: 2, warm: 1 } },
  });
});
afterAll(async () => {
  await grid?.close();
});

function session(capabilities: Record<string, unknown>): Promise<WebDriver> {
  const options = new ChromeOptions();
  for (const [name, value] of Object.entries(capabilities)) options.set(name, value);
  return new Builder().usingServer(grid.url).forBrowser('chrome').setChromeOptions(options).build();
}

async function warmInStatus(): Promise<number | undefined> {
  const body = (await (await fetch(`${grid.url}/status`)).json()) as {
    value: { pools: { name: string; warm?: number }[] };
  };
  return body.value.pools.find((pool) => pool.name === 'local')?.warm;
}

/** What the session's page sees: its time zone, the clock's offset in January, its window's and screen's size. */
function seen(driver: WebDriver) {
  return driver.executeScript<{
    zone: string;
    offset: number;
    width: number;
    height: number;
    screen: string;
  }>(
    `return { zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      offset: new Date(Date.UTC(2026, 0, 15)).getTimezoneOffset(),
      width: window.outerWidth, height: window.outerHeight, screen: screen.width + 'x' + screen.height };`,
  );
}

describe('se:timeZone and se:screenResolution on a local pool', { timeout: TEST_MS }, () => {
  it('gives the session the asked zone and window, never the warm browser', async () => {
    await until(async () => (await warmInStatus()) === 1, 'a browser is warm');
    const driver = await session({ 'se:timeZone': 'Australia/Eucla', 'se:screenResolution': '1024x768' });
    try {
      // Eucla is UTC+8:45, no daylight saving: a zone no default or rounding could give.
      // A headless Chromium's screen is 800x600 unless it is told (--screen-info).
      expect(await seen(driver)).toEqual({
        zone: 'Australia/Eucla',
        offset: -525,
        width: 1024,
        height: 768,
        screen: '1024x768',
      });
    } finally {
      await driver.quit();
    }
    // The warm browser was left for a session that asks nothing, which sees the machine's own zone.
    expect(await warmInStatus()).toBe(1);
    const plain = await session({});
    try {
      expect((await seen(plain)).zone).not.toBe('Australia/Eucla');
    } finally {
      await plain.quit();
    }
  });

  it('refuses a zone or a size no browser could take as invalid argument', async () => {
    for (const [capabilities, message] of [
      [{ 'se:timeZone': 'Mars/Olympus_Mons' }, 'se:timeZone "Mars/Olympus_Mons" is not a time zone'],
      [{ 'se:timeZone': '../etc/passwd' }, 'se:timeZone must be a time zone name'],
      [{ 'se:screenResolution': '1024' }, 'se:screenResolution must be WIDTHxHEIGHT'],
      [{ 'se:screenResolution': '20x20' }, 'se:screenResolution must be WIDTHxHEIGHT'],
    ] as const) {
      const answer = await fetch(`${grid.url}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome', ...capabilities } } }),
      });
      expect(answer.status).toBe(400);
      const { value } = (await answer.json()) as { value: { error: string; message: string } };
      expect(value.error).toBe('invalid argument');
      expect(value.message).toContain(message);
    }
  });
});
