/**
 * End to end: every client family through a container pool, on both test images (chromedriver alone, and the
 * docker-selenium look-alike): WebdriverIO with BiDi over the WebSocket gridgate hands back, Debian's Python
 * Selenium, Selenium's Java client, and Playwright over se:cdp, which gridgate serves through the container's
 * DevTools door (devtools-door.ts) on both images: chromedriver alone offers no CDP of its own. Pages reach
 * the test site on this machine's loopback through the pool's `hostLoopback`, at 10.0.2.2.
 */
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remote } from 'webdriverio';
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
import { JAVA_TIMEOUT_MS, runJavaProgram } from '../../../support/java-selenium';
import { PYTHON_SCRIPT_TIMEOUT_MS, runPythonScript } from '../../../support/python-selenium';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { eventually } from '../../../support/until';

const TEST_MS = 180_000;

let images: TestImages;
let site: TestPageServer;

beforeAll(async () => {
  [images, site] = await Promise.all([containerImages(), startTestPageServer()]);
}, 900_000);

afterAll(() => site?.close());

describe.each([
  ['chromedriver', (i: TestImages) => i.chromedriver],
  ['standalone-chromium', (i: TestImages) => i.standaloneChromium],
] as const)('a container pool of the %s image', (label, imageOf) => {
  const pool = uniquePoolName(`clients-${label}`);
  let grid: TestGrid;
  const pageUrl = () => site.url.replace('127.0.0.1', HOST_LOOPBACK_FROM_PAGES);

  beforeAll(async () => {
    grid = await startContainerGrid(pool, { image: imageOf(images), hostLoopback: true, maxSessions: 2 });
  });
  afterAll(async () => {
    await grid?.close();
    removeContainersOfPool(pool);
  });

  it('serves WebdriverIO with BiDi events through gridgate', { timeout: TEST_MS }, async () => {
    const browser = await remote({
      hostname: '127.0.0.1',
      port: grid.port,
      path: '/',
      logLevel: 'error',
      capabilities: { browserName: 'chrome', 'wdio:enforceWebDriverClassic': false },
    });
    try {
      expect(browser.isBidi).toBe(true);
      // Selenium's node serves BiDi under /se/bidi, chromedriver at the session's own path: both through gridgate.
      expect(String(browser.capabilities.webSocketUrl)).toMatch(
        new RegExp(`^${grid.url.replace(/^http/, 'ws')}/session/${browser.sessionId}(/se/bidi)?$`),
      );
      await browser.url(`${pageUrl()}/`);
      expect(await browser.getTitle()).toBe('gridgate test page');
      const logged = new Promise<string>((resolve) =>
        browser.on('log.entryAdded', (entry: { text: string | null }) => resolve(entry.text ?? '')),
      );
      await browser.sessionSubscribe({ events: ['log.entryAdded'] });
      await browser.execute(() => console.log('hello from a container'));
      expect(await logged).toBe('hello from a container');
    } finally {
      await browser.deleteSession();
    }
    expect(containersOfPool(pool)).toEqual([]);
  });

  it('serves Python Selenium', { timeout: PYTHON_SCRIPT_TIMEOUT_MS + 10_000 }, async () => {
    const run = await runPythonScript(`${grid.url}/wd/hub`, `${pageUrl()}/`);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^passed: \d+ checks$/m);
    expect(run.code).toBe(0);
    expect(containersOfPool(pool)).toEqual([]);
  });

  it("serves Selenium's Java client", { timeout: JAVA_TIMEOUT_MS + 10_000 }, async () => {
    const run = await runJavaProgram(grid.url, pageUrl());
    expect(run.stdout).toMatch(/passed/);
    expect(run.code).toBe(0);
    expect(containersOfPool(pool)).toEqual([]);
  });

  it('lets Playwright drive the browser over se:cdp', { timeout: TEST_MS }, async () => {
    process.env.SELENIUM_REMOTE_URL = grid.url;
    try {
      const browser = await chromium.launch();
      try {
        const context = browser.contexts()[0] ?? (await browser.newContext());
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(`${pageUrl()}/`);
        expect(await page.title()).toBe('gridgate test page');
        await page.fill('#name', 'Ada');
        await page.click('#greet');
        await eventually(async () => expect(await page.textContent('#result')).toBe('Hello, Ada'));
      } finally {
        await browser.close();
      }
    } finally {
      delete process.env.SELENIUM_REMOTE_URL;
    }
    await eventually(() => expect(containersOfPool(pool)).toEqual([]));
  });
});
