/**
 * The isolation a container pool gives by construction: a page in one session's container reaches neither
 * gridgate, nor another session's container, nor any service on this machine's loopback, since each container
 * has a network namespace of its own (slirp4netns, host loopback off) and the containers' ports are published
 * on loopback only. With `hostLoopback`, pages reach this machine's loopback (a dev server), yet still no
 * container, whose ports then sit on 127.0.0.2. Each case is a navigation, which no browser policy on
 * requests to private addresses stands in the way of: it loads, or it fails with a network error; a page the
 * container serves itself (its own driver's /status) shows a load is seen as one.
 */
import { Builder, type WebDriver } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestImages } from '../../../../scripts/test-images';
import {
  containerImages,
  HOST_LOOPBACK_FROM_PAGES,
  removeContainersOfPool,
  startContainerGrid,
  uniquePoolName,
} from '../../../support/container-grid';
import type { TestGrid } from '../../../support/grid-fixture';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';

const TEST_MS = 120_000;

let images: TestImages;
let site: TestPageServer;

beforeAll(async () => {
  [images, site] = await Promise.all([containerImages(), startTestPageServer()]);
}, 900_000);

afterAll(() => site?.close());

/** Whether the page at `url` loads in the session's browser (false: a network error). */
async function loads(driver: WebDriver, url: string): Promise<boolean> {
  try {
    await driver.get(url);
  } catch (error) {
    if (/net::ERR_/.test(String(error))) return false;
    throw error;
  }
  // Some versions show the error page instead of failing the navigation.
  return !(await driver.getCurrentUrl()).startsWith('chrome-error:');
}

function portOf(grid: TestGrid, driverSession: string): string {
  const check = grid.deps.tokens.verify(driverSession, 'guest');
  if (!check.ok) throw new Error(check.reason);
  return check.claims.address.split(':')[1] as string;
}

describe.each([
  [false, '127.0.0.1'],
  [true, '127.0.0.2'],
] as const)('a container pool with hostLoopback %s', (hostLoopback, publishedOn) => {
  const pool = uniquePoolName(`isolation-${hostLoopback}`);
  let grid: TestGrid;
  const drivers: WebDriver[] = [];

  beforeAll(async () => {
    grid = await startContainerGrid(pool, { image: images.chromedriver, hostLoopback, maxSessions: 2 });
  });
  afterAll(async () => {
    await Promise.all(drivers.map((driver) => driver.quit().catch(() => undefined)));
    await grid?.close();
    removeContainersOfPool(pool);
  });

  it("keeps a session's pages from gridgate and from another session's container", {
    timeout: TEST_MS,
  }, async () => {
    const [one, other] = await Promise.all(
      [1, 2].map(() => new Builder().usingServer(grid.url).forBrowser('chrome').build()),
    );
    drivers.push(one as WebDriver, other as WebDriver);
    const page = one as WebDriver;
    const otherPort = portOf(grid, (await (other as WebDriver).getSession()).getId());
    const host = HOST_LOOPBACK_FROM_PAGES;

    // Its own container's chromedriver: a load is seen as one.
    expect(await loads(page, 'http://127.0.0.1:4444/status')).toBe(true);
    // The other session's container, where its port is published and through the host's loopback.
    expect(await loads(page, `http://${publishedOn}:${otherPort}/status`)).toBe(false);
    expect(await loads(page, `http://${host}:${otherPort}/status`)).toBe(false);
    // gridgate itself, on this machine's loopback, named as the machine's and as the page's own.
    expect(await loads(page, `http://127.0.0.1:${grid.port}/status`)).toBe(false);
    // A service on this machine's loopback: only a pool with hostLoopback lets pages reach it.
    expect(await loads(page, `http://${host}:${new URL(site.url).port}/`)).toBe(hostLoopback);
    if (!hostLoopback) expect(await loads(page, `http://${host}:${grid.port}/status`)).toBe(false);
  });
});
