/**
 * End to end with `npm start` (the production build, two worker processes): a Playwright client and a CDP
 * client through a worker's port, the session made in the primary, the Playwright server's scripts found
 * beside the built entry; each session ends with its socket.
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
});
