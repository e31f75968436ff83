/**
 * End to end on a hub pool (a real Selenium Grid 4): a CDP client (Puppeteer) and a Playwright client, each a
 * session of its own, reach the hub's browser through the session's se:cdp, which gridgate relays to the hub
 * with the hub's credentials; the catalog's `chrome` serves Playwright's `chromium`. Each leaves nothing
 * behind (no hub session, no Playwright server, no folder), also when the client is killed mid-run. A client
 * asking enableVideo=true has the hub asked to record, as a WebDriver client's se:recordVideo asks it. With the
 * pool full, a connection waits in the queue until one closes. A client's exposeNetwork is refused: the hub's
 * browser is not on this machine.
 */
import { chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { chromiumVersion } from '../../../../functions/pools/local/ensure-chromium';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import {
  hubPoolConfig,
  type SeleniumGrid,
  START_MS,
  startSeleniumGrid,
} from '../../../support/selenium-grid';
import {
  killedMidRun,
  playwrightFolders,
  playwrightServers,
  playwrightVisit,
  puppeteerVisit,
} from '../../../support/socket-session-clients';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { until } from '../../../support/until';
import { opened } from '../../../support/websocket-upgrade';

let hub: SeleniumGrid;
let grid: TestGrid;
let site: TestPageServer;
const wsUrl = () => grid.url.replace(/^http/, 'ws');

beforeAll(async () => {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  hub = await startSeleniumGrid(version);
  [grid, site] = await Promise.all([startTestGrid(hubPoolConfig(hub, version)), startTestPageServer()]);
}, START_MS + 30_000);

afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  await hub?.stop();
});

afterEach(async () => {
  await until(async () => (await grid.deps.sessions.running()).length === 0, 'every session ended');
  await until(async () => (await hub.sessions()) === 0, "the hub's browser ended");
  await until(() => playwrightServers(process.pid).length === 0, 'no Playwright server left');
  expect(playwrightFolders()).toEqual([]);
});

describe('Playwright and CDP clients on a hub pool', { timeout: 150_000 }, () => {
  it("serves Puppeteer's connect with the hub's browser, one session per socket", async () => {
    const title = await puppeteerVisit(
      `${wsUrl()}/devtools/chrome?name=hub-puppeteer`,
      site.url,
      async () => {
        const sessions = await grid.deps.sessions.running();
        expect(sessions.map((session) => [session.pool, session.name])).toEqual([
          ['selenium', 'hub-puppeteer'],
        ]);
        expect(await hub.sessions()).toBe(1);
      },
    );
    expect(title).toBe('gridgate test page');
  });

  it("serves Playwright's chromium.connect with the hub's browser, a screenshot included", async () => {
    const { title, screenshot } = await playwrightVisit(
      `${wsUrl()}/playwright/chromium`,
      site.url,
      async () => {
        expect(await hub.sessions()).toBe(1);
        expect(playwrightFolders()).toHaveLength(1);
        // The status page says which protocol the session speaks.
        const [session] = await grid.deps.sessions.running();
        const shown = await (await fetch(`${grid.url}/ui/api/sessions/${session?.key}`)).json();
        expect(shown.session).toMatchObject({ pool: 'selenium', protocol: 'playwright' });
      },
    );
    expect(title).toBe('gridgate test page');
    expect(screenshot.subarray(1, 4).toString()).toBe('PNG');
  });

  it('asks the hub to record a connection that asks enableVideo=true, as a WebDriver client asks it', async () => {
    const { title } = await playwrightVisit(
      `${wsUrl()}/playwright/chromium?enableVideo=true`,
      site.url,
      async () => {
        // Selenium Grid's nodes record a session asked so when they run its video container; this one runs none.
        expect(await hub.askedCapabilities()).toEqual([expect.objectContaining({ 'se:recordVideo': true })]);
      },
    );
    expect(title).toBe('gridgate test page');
  });

  it('queues a connection while the hub pool is full, and serves it once one closes', async () => {
    const two = ['/devtools/chrome?name=first', '/devtools/chrome?name=second'].map(
      (path) => new WebSocket(`${wsUrl()}${path}`),
    );
    try {
      await Promise.all(two.map(opened));
      expect(await hub.sessions()).toBe(2);
      let thirdOpen = false;
      const third = chromium.connect(`${wsUrl()}/playwright/chromium?name=third`).then((browser) => {
        thirdOpen = true;
        return browser;
      });
      await until(() => grid.deps.queue.lengths().waiting === 1, 'the third connection waits in the queue');
      expect(thirdOpen).toBe(false);
      two[0]?.close();
      const browser = await third;
      try {
        const page = await browser.newPage();
        await page.goto(site.url);
        expect(await page.title()).toBe('gridgate test page');
        expect((await grid.deps.sessions.running()).map((session) => session.name).sort()).toEqual([
          'second',
          'third',
        ]);
      } finally {
        await browser.close();
      }
    } finally {
      for (const socket of two) socket.close();
    }
  });

  it('ends the session, its hub session and its Playwright server when the client is killed mid-run', async () => {
    await killedMidRun(`${wsUrl()}/playwright/chromium`, site.url, async () => {
      expect(await hub.sessions()).toBe(1);
      expect(playwrightServers(process.pid).length).toBeGreaterThan(0);
    });
    // afterEach: no session, hub session, Playwright server or folder left.
  });

  it("refuses exposeNetwork, which it cannot serve for a hub's browser, and ends the session", async () => {
    await expect(
      chromium.connect(`${wsUrl()}/playwright/chromium`, { exposeNetwork: '<loopback>' }),
    ).rejects.toThrow(/exposeNetwork is served for local pools' browsers; the pool selenium/);
  });
});
