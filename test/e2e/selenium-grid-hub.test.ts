import { Builder, By } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromiumVersion } from '../../functions/adapters/local/ensure-chromium';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { hubPoolConfig, type SeleniumGrid, START_MS, startSeleniumGrid } from '../support/selenium-grid';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';

const TEST_MS = 150_000;

let hub: SeleniumGrid | undefined;
let grid: TestGrid;
let site: TestPageServer;

beforeAll(async () => {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  hub = await startSeleniumGrid(version);
  [grid, site] = await Promise.all([startTestGrid(hubPoolConfig(hub, version)), startTestPageServer()]);
}, START_MS + 30_000);

afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  await hub?.stop();
});

describe('a Selenium Grid 4 hub through gridgate', { timeout: TEST_MS }, () => {
  it('creates the session at the hub, runs commands there and ends it there', async () => {
    const driver = await new Builder().usingServer(`${grid.url}/wd/hub`).forBrowser('chrome').build();
    try {
      const sessionId = (await driver.getSession()).getId();
      expect(sessionId).toMatch(/^[A-Za-z0-9_-]{60,160}$/);
      expect(await (hub as SeleniumGrid).sessions()).toBe(1);
      await driver.get(`${site.url}/`);
      expect(await driver.getTitle()).toBe('gridgate test page');
      expect(await driver.findElement(By.id('heading')).getText()).toBe('Hello from 127.0.0.1');

      // se:cdp points at gridgate, which relays it to the hub's WebSocket with the hub's credentials.
      const wsBase = grid.url.replace(/^http/, 'ws');
      expect((await driver.getCapabilities()).get('se:cdp')).toBe(
        `${wsBase}/wd/hub/session/${sessionId}/se/cdp`,
      );
      const cdp = await driver.createCDPConnection('page');
      const answer = (await cdp.send('Runtime.evaluate', {
        expression: 'document.title',
        returnByValue: true,
      })) as { result?: { result?: { value?: unknown } } };
      expect(answer.result?.result?.value).toBe('gridgate test page');
    } finally {
      await driver.quit();
    }
    // The hub frees its slot a moment after it answered the DELETE.
    await vi.waitFor(async () => expect(await (hub as SeleniumGrid).sessions()).toBe(0), {
      timeout: 10_000,
      interval: 200,
    });
    expect(grid.logger.events()).toContain('SESSION_DELETED');
  });
});
