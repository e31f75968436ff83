import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, By } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remote } from 'webdriverio';
import { upstreamEndpoint } from '../../../../functions/core/browser-network';
import { HubLauncher } from '../../../../functions/pools/hub/hub-launcher';
import { chromiumVersion } from '../../../../functions/pools/local/ensure-chromium';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { openProtocolSocket } from '../../../support/protocol-socket';
import {
  hubPoolConfig,
  type SeleniumGrid,
  START_MS,
  startSeleniumGrid,
} from '../../../support/selenium-grid';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { eventually } from '../../../support/until';

const TEST_MS = 150_000;

let hub: SeleniumGrid | undefined;
let grid: TestGrid;
let site: TestPageServer;

beforeAll(async () => {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  hub = await startSeleniumGrid(version);
  [grid, site] = await Promise.all([startTestGrid(hubPoolConfig(hub, version)), startTestPageServer()]);
}, START_MS + 30_000);

afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  await hub?.stop();
});

describe('a Selenium Grid 4 hub through gridgate', { timeout: TEST_MS }, () => {
  it('creates the session at the hub, runs commands there and ends it there', async () => {
    const driver = await new Builder().usingServer(`${grid.url}/wd/hub`).forBrowser('chrome').build();
    try {
      const sessionId = (await driver.getSession()).getId();
      expect(sessionId).toMatch(/^[A-Za-z0-9_-]{60,160}$/);
      expect(await (hub as SeleniumGrid).sessions()).toBe(1);
      await driver.get(`${site.url}/`);
      expect(await driver.getTitle()).toBe('gridgate test page');
      expect(await driver.findElement(By.id('heading')).getText()).toBe('Hello from 127.0.0.1');

      // se:cdp points at gridgate, which relays it to the hub's WebSocket with the hub's credentials.
      const wsBase = grid.url.replace(/^http/, 'ws');
      expect((await driver.getCapabilities()).get('se:cdp')).toBe(
        `${wsBase}/wd/hub/session/${sessionId}/se/cdp`,
      );
      const cdp = await driver.createCDPConnection('page');
      const answer = (await cdp.send('Runtime.evaluate', {
        expression: 'document.title',
        returnByValue: true,
      })) as { result?: { result?: { value?: unknown } } };
      expect(answer.result?.result?.value).toBe('gridgate test page');
      // The hub's browser runs on the hub's node, not here: a download folder of any name passes unchecked,
      // where a local session's would be held to its folder (session-folder-sockets.test.ts).
      const socket = await openProtocolSocket(String((await driver.getCapabilities()).get('se:cdp')));
      try {
        const folder = join(tmpdir(), 'gridgate-hub-node-downloads');
        const passed = await socket.send({
          method: 'Browser.setDownloadBehavior',
          params: { behavior: 'allow', downloadPath: folder },
        });
        expect(passed).toEqual({ id: expect.any(Number), result: {} });
      } finally {
        await socket.close();
      }
    } finally {
      await driver.quit();
    }
    // The hub frees its slot a moment after it answered the DELETE.
    await eventually(async () => expect(await (hub as SeleniumGrid).sessions()).toBe(0), 10_000, 200);
    expect(grid.logger.events()).toContain('SESSION_DELETED');
  });

  it('speaks BiDi with WebdriverIO to the hub’s /se/bidi through gridgate', async () => {
    const browser = await remote({
      hostname: '127.0.0.1',
      port: Number(new URL(grid.url).port),
      path: '/',
      logLevel: 'silent',
      capabilities: { browserName: 'chrome', 'wdio:enforceWebDriverClassic': false },
    });
    try {
      // Grid 4 serves BiDi at /session/{id}/se/bidi and refuses a socket at the session's bare path.
      const wsBase = grid.url.replace(/^http/, 'ws');
      expect(browser.capabilities.webSocketUrl).toBe(`${wsBase}/session/${browser.sessionId}/se/bidi`);
      expect(browser.isBidi).toBe(true);
      await browser.url(`${site.url}/`);
      const tree = await browser.browsingContextGetTree({});
      expect(tree.contexts.map((context) => context.url)).toEqual([`${site.url}/`]);
    } finally {
      await browser.deleteSession();
    }
  });

  it("finds in the hub's /status a session whose creation was abandoned, by its key, and ends only that one", async () => {
    const pool = grid.deps.config.pools.selenium;
    if (pool?.kind !== 'hub') throw new Error('no hub pool');
    const launcher = new HubLauncher();
    const endpoint = upstreamEndpoint(pool, '');
    // Asked for as a head asks, which then dies before it hears the answer: nobody knows the session's ID.
    const ask = async (key: string) => {
      const launched = await launcher.start({
        pool,
        key,
        user: 'guest',
        idleTimeoutMs: 60_000,
        inUseMs: 3_660_000,
        capabilities: { browserName: 'chrome' },
        signal: new AbortController().signal,
      });
      const created = await fetch(`${endpoint.origin}${endpoint.basePath}/session`, {
        method: 'POST',
        headers: {
          authorization: endpoint.authorization ?? '',
          'content-type': 'application/json; charset=utf-8',
        },
        body: JSON.stringify({ capabilities: { alwaysMatch: launched.capabilities } }),
      });
      expect(created.status).toBe(200);
      return ((await created.json()) as { value: { sessionId: string } }).value.sessionId;
    };
    const abandoned = await ask('abandoned-key');
    const kept = await ask('kept-key');
    expect(await (hub as SeleniumGrid).sessions()).toBe(2);

    expect(await launcher.endAbandoned(pool, ['abandoned-key', 'never-asked'])).toEqual(
      new Map([[abandoned, 'abandoned-key']]),
    );
    await eventually(async () => expect(await (hub as SeleniumGrid).sessions()).toBe(1), 10_000, 200);
    await launcher.stop('', { key: 'k', pool, reason: 'creation failed', upstreamId: kept });
    await eventually(async () => expect(await (hub as SeleniumGrid).sessions()).toBe(0), 10_000, 200);
  });
});
