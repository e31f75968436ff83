/**
 * End to end on container pools of both test images: Puppeteer and Playwright clients, each a session of its
 * own, reach the container's browser through the session's se:cdp (the container's DevTools door on the
 * chromedriver image, the Selenium node's on the docker-selenium look-alike), and leave no container,
 * Playwright server or folder behind, also when the client is killed mid-run. A connection past the pool's
 * limit waits in the queue until one closes; one that asks enableVideo=true is recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
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
  killedMidRun,
  playwrightFolders,
  playwrightServers,
  playwrightVisit,
  puppeteerVisit,
  recordedPlaywrightVisit,
} from '../../../support/socket-session-clients';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { until } from '../../../support/until';

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
  await until(() => playwrightServers(process.pid).length === 0, 'no Playwright server left');
  expect(playwrightFolders()).toEqual([]);
}

describe.each([
  ['chromedriver', (i: TestImages) => i.chromedriver],
  ['standalone-chromium', (i: TestImages) => i.standaloneChromium],
] as const)('a container pool of the %s image', (label, imageOf) => {
  const pool = uniquePoolName(`sockets-${label}`);
  let grid: TestGrid;
  const wsUrl = () => grid.url.replace(/^http/, 'ws');

  const recordings = mkdtempSync(join(tmpdir(), `gg-${pool}-`));

  beforeAll(async () => {
    grid = await startContainerGrid(
      pool,
      { image: imageOf(images), hostLoopback: true, maxSessions: 2 },
      { recording: { directory: recordings } },
    );
  });
  afterAll(async () => {
    await grid?.close();
    removeContainersOfPool(pool);
    rmSync(recordings, { recursive: true, force: true });
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

  it("queues a connection past the pool's two, and serves it once one closes", {
    timeout: TEST_MS,
  }, async () => {
    const held = ['first', 'second'].map((name) => new WebSocket(`${wsUrl()}/devtools/chrome?name=${name}`));
    try {
      await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('open', resolve))));
      const third = chromium.connect(`${wsUrl()}/playwright/chromium?name=third`);
      await until(() => grid.deps.queue.lengths().waiting === 1, 'the third connection waits in the queue');
      expect(containersOfPool(pool)).toHaveLength(2);
      held[0]?.close();
      const browser = await third;
      const page = await browser.newPage();
      await page.setContent('<title>third</title>');
      expect(await page.title()).toBe('third');
      await browser.close();
    } finally {
      for (const socket of held) socket.close();
    }
  });

  it('ends the session and removes its container when the client is killed mid-run', {
    timeout: TEST_MS,
  }, async () => {
    await killedMidRun(`${wsUrl()}/playwright/chromium`, pageUrl(), async () => {
      expect(containersOfPool(pool)).toHaveLength(1);
    });
    // afterEach: no session, container, Playwright server or folder left.
  });

  it('records a connection that asks enableVideo=true', { timeout: TEST_MS }, async () => {
    const video = await recordedPlaywrightVisit(grid.url, pageUrl(), `${label}-recorded`);
    expect(video.codec).toBe('h264');
    expect(video.frames).toBeGreaterThan(0);
  });
});
