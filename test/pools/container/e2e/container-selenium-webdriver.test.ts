/**
 * End to end: container pools on both test images (chromedriver alone, and the docker-selenium look-alike),
 * driven by the npm selenium-webdriver client through gridgate. Each session is a container of its own, its
 * address on loopback and its ID in the signed session ID, and the container is gone once the client quits.
 */
import { Builder, By, until, type WebDriver } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestImages } from '../../../../scripts/test-images';
import {
  containerImages,
  containersOfPool,
  HOST_LOOPBACK_FROM_PAGES,
  removeContainersOfPool,
  startContainerGrid,
  uniquePoolName,
} from '../../../support/container-grid';
import type { TestGrid } from '../../../support/grid-fixture';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';

const TEST_MS = 180_000;
const WAIT_MS = 30_000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let images: TestImages;
let site: TestPageServer;

beforeAll(async () => {
  [images, site] = await Promise.all([containerImages(), startTestPageServer()]);
}, 900_000);

afterAll(() => site?.close());

describe.each([
  ['chromedriver', (i: TestImages) => i.chromedriver, 'ChromeDriver was started successfully'],
  ['standalone-chromium', (i: TestImages) => i.standaloneChromium, 'Started Selenium Standalone'],
] as const)('a container pool of the %s image, with selenium-webdriver', (label, imageOf, logSays) => {
  const pool = uniquePoolName(`sw-${label}`);
  let grid: TestGrid;
  // The site on this machine's loopback, as the pool's pages reach it.
  const pageUrl = () => site.url.replace('127.0.0.1', HOST_LOOPBACK_FROM_PAGES);

  beforeAll(async () => {
    grid = await startContainerGrid(pool, { image: imageOf(images), hostLoopback: true, maxSessions: 2 });
  });
  afterAll(async () => {
    await grid?.close();
    removeContainersOfPool(pool);
  });

  it('runs the session in a container of its own, and removes it when the client quits', {
    timeout: TEST_MS,
  }, async () => {
    const driver: WebDriver = await new Builder().usingServer(grid.url).forBrowser('chrome').build();
    let handle = '';
    try {
      const sessionId = (await driver.getSession()).getId();
      const check = grid.deps.tokens.verify(sessionId, 'guest');
      if (!check.ok) throw new Error(check.reason);
      handle = check.claims.handle;
      expect(check.claims.address).toMatch(/^127\.0\.0\.2:\d+$/);
      expect(containersOfPool(pool)).toEqual([handle]);

      await driver.get(`${pageUrl()}/`);
      expect(await driver.getTitle()).toBe('gridgate test page');
      await driver.findElement(By.css('input#name')).sendKeys('Ada');
      await driver.findElement(By.id('greet')).click();
      await driver.wait(until.elementTextIs(driver.findElement(By.id('result')), 'Hello, Ada'), WAIT_MS);
      expect((await driver.manage().getCookie('served-by'))?.value).toBe('gridgate-test');
      const png = Buffer.from(await driver.takeScreenshot(), 'base64');
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      // The session's log is its container's output (podman logs), while it runs.
      const log = await fetch(`${grid.url}/logs/${sessionId}.log`);
      expect(log.status).toBe(200);
      expect(await log.text()).toContain(logSays);
    } finally {
      await driver.quit();
    }
    // The DELETE is answered once the container was removed.
    expect(containersOfPool(pool)).toEqual([]);
    const events = grid.logger.lines.map((line) => line.event);
    expect(events).toContain('SESSION_DELETED');
  });
});
