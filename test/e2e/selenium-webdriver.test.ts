/** End to end: the npm selenium-webdriver client, unmodified, drives real Chromium through gridgate. */
import { Builder, By, until, type WebDriver } from 'selenium-webdriver';
import { describe, expect, it } from 'vitest';
import { useGridAndSite } from '../support/grid-fixture';
import { expectSessionEnded, sessionClaims } from './session-ended';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// Generous waits and test time: real Chromium on a busy 2-core machine can be slow (no timing is asserted).
const WAIT_MS = 30_000;
const TEST_MS = 150_000;

const env = useGridAndSite();

/** Runs the steps in a fresh session, quits, then checks the session's browser is gone. */
async function inSession(serverUrl: string, steps: (driver: WebDriver, sessionId: string) => Promise<void>) {
  const driver = await new Builder().usingServer(serverUrl).forBrowser('chrome').build();
  const sessionId = (await driver.getSession()).getId();
  try {
    await steps(driver, sessionId);
  } finally {
    await driver.quit();
  }
  await expectSessionEnded(env.grid, sessionId);
}

describe('selenium-webdriver through gridgate', { timeout: TEST_MS }, () => {
  it('fills in the form, runs a script and takes a real PNG screenshot', async () => {
    await inSession(env.grid.url, async (driver, sessionId) => {
      expect(env.grid.launcher.running()).toEqual([sessionClaims(env.grid, sessionId).handle]);

      await driver.get(`${env.site.url}/`);
      expect(await driver.getTitle()).toBe('gridgate test page');
      expect(await driver.findElement(By.id('heading')).getText()).toBe('Hello from 127.0.0.1');
      await driver.findElement(By.css('input#name')).sendKeys('Ada');
      await driver.findElement(By.id('greet')).click();
      await driver.wait(until.elementTextIs(driver.findElement(By.id('result')), 'Hello, Ada'), WAIT_MS);
      expect(await driver.findElements(By.css('form input, form button'))).toHaveLength(2);

      expect(await driver.executeScript('return document.title + " " + (6 * 7);')).toBe(
        'gridgate test page 42',
      );
      const png = Buffer.from(await driver.takeScreenshot(), 'base64');
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(png.length).toBeGreaterThan(2000);
    });
  });

  it('reads the site cookie, adds one and switches to a second window and back', async () => {
    await inSession(`${env.grid.url}/wd/hub`, async (driver) => {
      await driver.get(`${env.site.url}/`);
      expect((await driver.manage().getCookie('served-by'))?.value).toBe('gridgate-test');
      await driver.manage().addCookie({ name: 'added-by', value: 'selenium-webdriver' });
      expect((await driver.manage().getCookie('added-by'))?.value).toBe('selenium-webdriver');
      const names = (await driver.manage().getCookies()).map((cookie) => cookie.name).sort();
      expect(names).toEqual(['added-by', 'served-by']);

      const first = await driver.getWindowHandle();
      await driver.findElement(By.id('open-second')).click();
      await driver.wait(async () => (await driver.getAllWindowHandles()).length === 2, WAIT_MS);
      const second = (await driver.getAllWindowHandles()).find((handle) => handle !== first);
      expect(second).toBeDefined();
      await driver.switchTo().window(second as string);
      await driver.wait(until.titleIs('second page'), WAIT_MS);
      expect(await driver.findElement(By.id('second')).getText()).toBe('second');
      await driver.close();
      await driver.switchTo().window(first);
      expect(await driver.getAllWindowHandles()).toEqual([first]);
      expect(await driver.getTitle()).toBe('gridgate test page');
    });
  });

  it('opens CDP through the se:cdp capability gridgate hands back', async () => {
    await inSession(env.grid.url, async (driver, sessionId) => {
      const capabilities = await driver.getCapabilities();
      const wsBase = env.grid.url.replace(/^http/, 'ws');
      expect(capabilities.get('se:cdp')).toBe(`${wsBase}/session/${sessionId}/se/cdp`);

      await driver.get(`${env.site.url}/`);
      const cdp = await driver.createCDPConnection('page');
      const answer = (await cdp.send('Runtime.evaluate', {
        expression: 'document.title',
        returnByValue: true,
      })) as { result?: { result?: { value?: unknown } } };
      expect(answer.result?.result?.value).toBe('gridgate test page');
    });
  });
});
