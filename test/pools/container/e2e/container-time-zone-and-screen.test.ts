/**
 * End to end on real podman, both test images: Selenium Grid 4's se:timeZone and se:screenResolution (and
 * Selenoid's spelling of them) on a container pool. The session's pages see the asked zone (Intl and the clock's offset) and a screen and window
 * of the asked size: the chromedriver image's headless Chromium through its switches, the docker-selenium
 * look-alike through its display (SE_SCREEN_WIDTH/HEIGHT) too. With a warm container kept, such a session
 * gets a container started for it (the warm one has neither), and a session asking nothing still takes the
 * warm one and sees the container's own zone.
 */
import { Builder, type WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestImages } from '../../../../scripts/test-images';
import {
  containerImages,
  containersOfPool,
  removeContainersOfPool,
  startContainerGrid,
  uniquePoolName,
} from '../../../support/container-grid';
import type { TestGrid } from '../../../support/grid-fixture';
import { eventually } from '../../../support/until';

const TEST_MS = 180_000;

let images: TestImages;
const pools: string[] = [];
const grids: TestGrid[] = [];

beforeAll(async () => {
  images = await containerImages();
}, 900_000);

afterAll(async () => {
  await Promise.all(grids.map((grid) => grid.close()));
  for (const pool of pools) removeContainersOfPool(pool);
});

function session(grid: TestGrid, capabilities: Record<string, unknown>): Promise<WebDriver> {
  const options = new ChromeOptions();
  for (const [name, value] of Object.entries(capabilities)) options.set(name, value);
  return new Builder().usingServer(grid.url).forBrowser('chrome').setChromeOptions(options).build();
}

/** What the session's page sees: its time zone, the clock's offset in January, its screen's and window's size. */
function seen(driver: WebDriver) {
  return driver.executeScript<{
    zone: string;
    offset: number;
    screen: string;
    width: number;
    height: number;
  }>(
    `return { zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      offset: new Date(Date.UTC(2026, 0, 15)).getTimezoneOffset(),
      screen: screen.width + 'x' + screen.height, width: outerWidth, height: outerHeight };`,
  );
}

const handleOf = async (grid: TestGrid, driver: WebDriver) => {
  const check = grid.deps.tokens.verify((await driver.getSession()).getId(), 'guest');
  if (!check.ok) throw new Error(check.reason);
  return check.claims.handle;
};

// A window manager (the look-alike's fluxbox, as docker-selenium's) keeps a window a border's width inside the
// screen; a headless Chromium's window is exactly the asked size.
// Grid 4's spelling on one image, Selenoid's (selenoid:options) on the other.
const GRID_SPELLING = { 'se:timeZone': 'Australia/Eucla', 'se:screenResolution': '1024x768' };
const SELENOID_SPELLING = {
  'selenoid:options': { timeZone: 'Australia/Eucla', screenResolution: '1024x768x24' },
};

describe.each([
  ['chromedriver', (i: TestImages) => i.chromedriver, 0, GRID_SPELLING],
  ['standalone-chromium', (i: TestImages) => i.standaloneChromium, 2, SELENOID_SPELLING],
])('a session’s time zone and screen size on a container pool (%s image)', (name, imageOf, border, asked) => {
  it('gives the session the asked zone, screen and window, never the warm container', {
    timeout: TEST_MS,
  }, async () => {
    const pool = uniquePoolName(`zone-${name}`);
    pools.push(pool);
    const grid = await startContainerGrid(pool, { image: imageOf(images), warm: 1, maxSessions: 2 });
    grids.push(grid);
    const warmCount = () => grid.deps.runtimes.container?.warm?.warmCount(pool);
    await eventually(() => expect(warmCount()).toBe(1), 120_000);
    const [warm] = containersOfPool(pool);

    const driver = await session(grid, asked);
    try {
      expect(await handleOf(grid, driver)).not.toBe(warm);
      // Eucla is UTC+8:45, no daylight saving: a zone no default or rounding could give.
      const page = await seen(driver);
      expect(page).toMatchObject({ zone: 'Australia/Eucla', offset: -525, screen: '1024x768' });
      expect(page.width).toBeLessThanOrEqual(1024);
      expect(page.width).toBeGreaterThanOrEqual(1024 - border);
      expect(page.height).toBeLessThanOrEqual(768);
      expect(page.height).toBeGreaterThanOrEqual(768 - border);
    } finally {
      await driver.quit();
    }
    // The warm container was left for a session that asks nothing, which sees the container's own zone.
    expect(warmCount()).toBe(1);
    const plain = await session(grid, {});
    try {
      expect(await handleOf(grid, plain)).toBe(warm);
      expect((await seen(plain)).zone).not.toBe('Australia/Eucla');
    } finally {
      await plain.quit();
    }
  });
});
