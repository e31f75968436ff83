/**
 * End to end with `npm start` (the production build, two worker processes): a Playwright client and a CDP
 * client through a worker's port, the session made in the primary, the Playwright server's scripts found
 * beside the built entry; each session ends with its socket. A client's exposeNetwork is served from the
 * worker too (the proxy's listener opened in the browser's namespace by a script of the build).
 */
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { until } from '../support/until';

let server: NodeServerProcess;
let site: TestPageServer;
let url: string;

beforeAll(async () => {
  server = startNodeServer({ port: 0, host: '127.0.0.1', workers: 2 });
  [url, site] = await Promise.all([server.url, startTestPageServer()]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), site?.close()]);
});

const events = (event: string) => server.lines.filter((line) => line.event === event).length;

describe('Playwright and CDP clients of the built server with workers', { timeout: 180_000 }, () => {
  it('serves chromium.connect and Puppeteer, each a session ended with its socket', async () => {
    const ws = url.replace(/^http/, 'ws');
    const browser = await chromium.connect(`${ws}/playwright/chromium`);
    const page = await browser.newPage();
    await page.goto(site.url);
    expect(await page.title()).toBe('gridgate test page');
    await browser.close();

    const cdp = await puppeteer.connect({ browserWSEndpoint: `${ws}/devtools/chrome` });
    const tab = await cdp.newPage();
    await tab.goto(site.url);
    expect(await tab.title()).toBe('gridgate test page');
    await cdp.disconnect();

    expect(events('SESSION_CREATED')).toBe(2);
    await until(() => events('SESSION_DELETED') === 2, 'both sessions ended');
  });

  it("serves exposeNetwork from a worker: the exposed host through the client's tunnel, others refused", async () => {
    const ws = url.replace(/^http/, 'ws');
    const port = new URL(site.url).port;
    const browser = await chromium.connect(`${ws}/playwright/chromium`, {
      exposeNetwork: `localhost:${port}`,
    });
    try {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${port}/`);
      expect(await page.title()).toBe('gridgate test page');
      // The same site by a name the pattern does not expose: the session's proxy refuses it.
      await expect(page.goto(`http://127.0.0.1:${port}/`)).rejects.toThrow(/ERR_SOCKS_CONNECTION_FAILED/);
    } finally {
      await browser.close();
    }
    await until(() => events('SESSION_DELETED') === events('SESSION_CREATED'), 'the session ended');
  });
});
