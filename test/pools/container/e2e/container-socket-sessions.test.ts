/**
 * End to end on container pools: Puppeteer and Playwright clients, each a session of its own, reach a
 * docker-selenium look-alike's browser through the session's se:cdp (the Selenium node's, relayed by
 * gridgate), and leave no container, Playwright server or folder behind. An image whose browser offers no
 * se:cdp (chromedriver alone) refuses them on the upgrade, with its container gone.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
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
import {
  playwrightFolders,
  playwrightServers,
  playwrightVisit,
  puppeteerVisit,
} from '../../../support/socket-session-clients';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { until } from '../../../support/until';
import { upgradeOutcome } from '../../../support/websocket-upgrade';

const TEST_MS = 180_000;

let images: TestImages;
let site: TestPageServer;
const pageUrl = () => site.url.replace('127.0.0.1', HOST_LOOPBACK_FROM_PAGES);

beforeAll(async () => {
  [images, site] = await Promise.all([containerImages(), startTestPageServer()]);
}, 900_000);

afterAll(() => site?.close());

/** Nothing of the pool's sessions left on this machine. */
async function nothingLeft(grid: TestGrid, pool: string): Promise<void> {
  await until(async () => (await grid.deps.sessions.running()).length === 0, 'every session ended');
  await until(() => containersOfPool(pool).length === 0, 'every container removed', { timeoutMs: 60_000 });
  await until(() => playwrightServers().length === 0, 'no Playwright server left');
  expect(playwrightFolders()).toEqual([]);
}

describe('a container pool of the docker-selenium look-alike', () => {
  const pool = uniquePoolName('sockets-selenium');
  let grid: TestGrid;
  const wsUrl = () => grid.url.replace(/^http/, 'ws');

  beforeAll(async () => {
    grid = await startContainerGrid(pool, {
      image: images.standaloneChromium,
      hostLoopback: true,
      maxSessions: 2,
    });
  });
  afterAll(async () => {
    await grid?.close();
    removeContainersOfPool(pool);
  });
  afterEach(() => nothingLeft(grid, pool), 90_000);

  it("serves Puppeteer's connect with the container's browser", { timeout: TEST_MS }, async () => {
    const title = await puppeteerVisit(
      `${wsUrl()}/devtools/chrome?name=container-puppeteer`,
      pageUrl(),
      async () => {
        expect(containersOfPool(pool)).toHaveLength(1);
        const sessions = await grid.deps.sessions.running();
        expect(sessions.map((session) => [session.pool, session.name])).toEqual([
          [pool, 'container-puppeteer'],
        ]);
      },
    );
    expect(title).toBe('gridgate test page');
  });

  it("serves Playwright's chromium.connect with the container's browser", { timeout: TEST_MS }, async () => {
    const { title, screenshot } = await playwrightVisit(
      `${wsUrl()}/playwright/chromium`,
      pageUrl(),
      async () => {
        expect(containersOfPool(pool)).toHaveLength(1);
      },
    );
    expect(title).toBe('gridgate test page');
    expect(screenshot.subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('a container pool of chromedriver alone', () => {
  const pool = uniquePoolName('sockets-chromedriver');
  let grid: TestGrid;

  beforeAll(async () => {
    grid = await startContainerGrid(pool, { image: images.chromedriver, hostLoopback: true, maxSessions: 2 });
  });
  afterAll(async () => {
    await grid?.close();
    removeContainersOfPool(pool);
  });

  it('refuses a Playwright client on the upgrade, its browser gone', { timeout: TEST_MS }, async () => {
    const outcome = await upgradeOutcome(
      new WebSocket(`${grid.url.replace(/^http/, 'ws')}/playwright/chromium`, {
        headers: { 'user-agent': 'Playwright/1.65.1 (x64; debian 12) node/20.19' },
      }),
    );
    if (!('status' in outcome)) throw new Error('the socket opened');
    expect(outcome.status).toBe(500);
    expect(JSON.parse(outcome.body).value).toMatchObject({
      error: 'session not created',
      message: expect.stringMatching(
        new RegExp(`the pool ${pool} cannot serve Playwright clients: .*no se:cdp`),
      ),
    });
    await nothingLeft(grid, pool);
  });
});
