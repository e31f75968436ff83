/**
 * End to end: a grid whose local pool keeps one browser warm (a chromedriver and a Chromium launched
 * ahead). Plain sessions of selenium-webdriver, WebdriverIO 9 (BiDi) and a coloured raw request each
 * attach to the Chromium that ran before they asked, and everything clients do works on it; a request
 * with its own Chromium arguments gets a fresh browser with them; /status shows the warm count; closing
 * the grid leaves nothing running.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { By, until, type WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remote } from 'webdriverio';
import { CHROMEDRIVER_FIRST_PAGE } from '../../../../functions/pools/local/chromium-process';
import { chromiumVersion } from '../../../../functions/pools/local/ensure-chromium';
import { expectSessionEnded, sessionClaims } from '../../../e2e/session-ended';
import { chromeSession } from '../../../support/chrome-sessions';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { devtoolsPort, type LaunchedProcess, launchedProcesses } from '../../../support/launched-processes';
import { processGroupAlive } from '../../../support/processes';
import { runPythonScript, sessionIdIn } from '../../../support/python-selenium';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { until as waitUntil } from '../../../support/until';

// Real Chromium on a busy 2-core machine: generous waits, no timing asserted.
const WAIT_MS = 30_000;
const TEST_MS = 180_000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let grid: TestGrid;
let site: TestPageServer;

beforeAll(async () => {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  [grid, site] = await Promise.all([
    startTestGrid({
      browsers: {
        chrome: {
          aliases: ['chromium'],
          defaultVersion: version,
          versions: { [version]: { pools: ['local'] } },
        },
      },
      // colorHeader: the environment colour is sent after the session is created, over the driver's CDP.
      pools: { local: { kind: 'local', maxSessions: 2, warm: 1, colorHeader: true } },
    }),
    startTestPageServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
});

async function warmInStatus(): Promise<number | undefined> {
  const response = await fetch(`${grid.url}/status`);
  const body = (await response.json()) as { value: { pools: { name: string; warm?: number }[] } };
  return body.value.pools.find((pool) => pool.name === 'local')?.warm;
}

async function untilWarm(count: number): Promise<void> {
  await waitUntil(async () => (await warmInStatus()) === count, `/status shows ${count} warm`);
}

interface WarmBrowser {
  chromedriver: number;
  chromium: LaunchedProcess;
  port: number;
}

/** The one warm browser, once /status shows it and no session runs: its processes and DevTools port. */
async function theWarmBrowser(): Promise<WarmBrowser> {
  await untilWarm(1);
  expect(grid.launcher.running()).toEqual([]);
  // A browser stopped a moment ago (a session's, or one a reload dismissed) may still be exiting.
  let drivers = launchedProcesses('chromedriver');
  let browsers = launchedProcesses('chromium');
  await waitUntil(
    () => {
      drivers = launchedProcesses('chromedriver');
      browsers = launchedProcesses('chromium');
      return drivers.length === 1 && browsers.length === 1;
    },
    'one chromedriver and one Chromium run',
    { timeoutMs: WAIT_MS },
  ).catch(() => undefined); // the expectations below say what is running instead
  expect(drivers).toHaveLength(1);
  expect(browsers).toHaveLength(1);
  const chromium = browsers[0] as LaunchedProcess;
  return {
    chromedriver: (drivers[0] as LaunchedProcess).pid,
    chromium,
    port: devtoolsPort(chromium) as number,
  };
}

const debuggerPortOf = (options: unknown) =>
  Number(String((options as { debuggerAddress?: string } | undefined)?.debuggerAddress).split(':')[1]);

/** The session runs on the warm browser: its chromedriver, attached to the Chromium launched before it. */
function expectOnWarmBrowser(sessionId: string, warm: WarmBrowser, chromeOptions: unknown): void {
  expect(sessionClaims(grid, sessionId).handle).toBe(String(warm.chromedriver));
  expect(debuggerPortOf(chromeOptions)).toBe(warm.port);
  expect(launchedProcesses('chromium').map((p) => p.pid)).toContain(warm.chromium.pid);
}

/** After the client quit: the session ended as any does, and the warm Chromium is gone with it. */
async function expectWarmBrowserGone(sessionId: string, warm: WarmBrowser): Promise<void> {
  await expectSessionEnded(grid, sessionId);
  expect(processGroupAlive(warm.chromium.pid)).toBe(false);
}

/** A loopback site that records each request's path and colour header. */
async function startColorRecorder(): Promise<{
  url: string;
  /** Every request in the order it came: its path and colour header (a miss then says whether it came at all). */
  seen: string[];
  close(): Promise<void>;
}> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${new URL(req.url ?? '/', 'http://x').pathname} ${req.headers['x-grid-color'] ?? '(none)'}`);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>recorded</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function command(sessionId: string, method: 'GET' | 'POST' | 'DELETE', path = '', body?: unknown) {
  const response = await fetch(`${grid.url}/session/${sessionId}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as { value: unknown };
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer.value;
}

/** Navigation, elements, scripts, screenshot, cookies, windows, timeouts and CDP through se:cdp. */
async function driveEverything(driver: WebDriver, sessionId: string): Promise<void> {
  await driver.get(`${site.url}/`);
  expect(await driver.getTitle()).toBe('gridgate test page');
  await driver.findElement(By.css('input#name')).sendKeys('Ada');
  await driver.findElement(By.id('greet')).click();
  await driver.wait(until.elementTextIs(driver.findElement(By.id('result')), 'Hello, Ada'), WAIT_MS);
  // chromedriver's launch switches are on the warm browser too (--enable-automation).
  expect(await driver.executeScript('return navigator.webdriver')).toBe(true);
  const png = Buffer.from(await driver.takeScreenshot(), 'base64');
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);

  expect((await driver.manage().getCookie('served-by'))?.value).toBe('gridgate-test');
  await driver.manage().addCookie({ name: 'added-by', value: 'warm' });
  expect((await driver.manage().getCookie('added-by'))?.value).toBe('warm');

  await driver.manage().setTimeouts({ implicit: 1500, script: 7000 });
  expect(await driver.manage().getTimeouts()).toMatchObject({ implicit: 1500, script: 7000 });
  await driver.manage().setTimeouts({ implicit: 0 });

  const first = await driver.getWindowHandle();
  await driver.findElement(By.id('open-second')).click();
  await driver.wait(async () => (await driver.getAllWindowHandles()).length === 2, WAIT_MS);
  const second = (await driver.getAllWindowHandles()).find((handle) => handle !== first) as string;
  await driver.switchTo().window(second);
  await driver.wait(until.titleIs('second page'), WAIT_MS);
  await driver.close();
  await driver.switchTo().window(first);
  await driver.switchTo().newWindow('tab');
  expect(await driver.getAllWindowHandles()).toHaveLength(2);
  await driver.close();
  await driver.switchTo().window(first);
  expect(await driver.getAllWindowHandles()).toEqual([first]);

  const capabilities = await driver.getCapabilities();
  expect(capabilities.get('se:cdp')).toBe(`${grid.url.replace(/^http/, 'ws')}/session/${sessionId}/se/cdp`);
  const cdp = await driver.createCDPConnection('page');
  const answer = (await cdp.send('Runtime.evaluate', {
    expression: 'document.title',
    returnByValue: true,
  })) as {
    result?: { result?: { value?: unknown } };
  };
  expect(answer.result?.result?.value).toBe('gridgate test page');
}

describe('a local pool with warm: 1', { timeout: TEST_MS }, () => {
  it('attaches each plain selenium-webdriver session to the Chromium launched before it, and starts the next', async () => {
    const seen: string[] = [];
    for (let round = 0; round < 2; round++) {
      const warm = await theWarmBrowser();
      // The second round asks for session options chromedriver applies after attaching.
      const options = new ChromeOptions();
      if (round === 1) {
        options.setPageLoadStrategy('eager');
        options.setAlertBehavior('ignore');
      }
      const driver = await chromeSession(grid.url, options);
      const sessionId = (await driver.getSession()).getId();
      try {
        const capabilities = await driver.getCapabilities();
        expectOnWarmBrowser(sessionId, warm, capabilities.get('goog:chromeOptions'));
        expect(capabilities.get('browserName')).toBe('chrome');
        expect(capabilities.get('browserVersion')).toBe(grid.chromiumVersion);
        if (round === 1) {
          expect(capabilities.get('pageLoadStrategy')).toBe('eager');
          expect(capabilities.get('unhandledPromptBehavior')).toBe('ignore');
        }
        seen.push(warm.chromium.pid.toString());
        // On the page chromedriver opens first when it launches Chromium, not on Chromium's New Tab page.
        expect(await driver.getCurrentUrl()).toBe(CHROMEDRIVER_FIRST_PAGE);
        await driveEverything(driver, sessionId);
        // The replacement starts once this one is handed over.
        await untilWarm(1);
        expect(launchedProcesses('chromium')).toHaveLength(2);
      } finally {
        await driver.quit();
      }
      await expectWarmBrowserGone(sessionId, warm);
    }
    // Every browser served exactly one session.
    expect(new Set(seen).size).toBe(2);
  });

  it('attaches Python Selenium’s session (its ChromeOptions send empty extensions) to the warm browser', async () => {
    const warm = await theWarmBrowser();
    const run = await runPythonScript(grid.url, `${site.url}/`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^passed: 13 checks$/m);
    const sessionId = sessionIdIn(run.stdout);
    expect(sessionClaims(grid, sessionId).handle).toBe(String(warm.chromedriver));
    await expectWarmBrowserGone(sessionId, warm);
  });

  it('gives a request with its own Chromium arguments a fresh browser with them, launched as a warm one is', async () => {
    const warm = await theWarmBrowser();
    const options = new ChromeOptions();
    options.addArguments('--window-size=640,480');
    const driver = await chromeSession(grid.url, options);
    const sessionId = (await driver.getSession()).getId();
    try {
      const { handle } = sessionClaims(grid, sessionId);
      expect(handle).not.toBe(String(warm.chromedriver));
      expect(await driver.executeScript('return [window.outerWidth, window.outerHeight]')).toEqual([
        640, 480,
      ]);
      // The warm browser still waits for a plain request.
      expect(await warmInStatus()).toBe(1);
      expect(processGroupAlive(warm.chromium.pid)).toBe(true);
      // chromedriver launched this one itself: the warm one has the very same command line, so a
      // chromedriver that changes its launch switches fails here (see CHROMEDRIVER_SWITCHES).
      const cold = launchedProcesses('chromium').find((p) => p.pid !== warm.chromium.pid) as LaunchedProcess;
      const comparable = (args: string[]) =>
        args.filter((arg) => !/^--(user-data-dir|window-size)=/.test(arg) && !arg.startsWith('data:')).sort();
      expect(comparable(warm.chromium.args)).toEqual(comparable(cold.args));
    } finally {
      await driver.quit();
    }
    await expectSessionEnded(grid, sessionId);
  });

  it('runs WebdriverIO 9 with BiDi on a warm browser', async () => {
    const warm = await theWarmBrowser();
    const browser = await remote({
      hostname: '127.0.0.1',
      port: grid.port,
      path: '/',
      logLevel: 'error',
      waitforTimeout: WAIT_MS,
      capabilities: { browserName: 'chrome', 'wdio:enforceWebDriverClassic': false },
    });
    const { sessionId } = browser;
    try {
      expectOnWarmBrowser(sessionId, warm, browser.capabilities['goog:chromeOptions']);
      expect(browser.isBidi).toBe(true);
      expect(browser.capabilities.webSocketUrl).toBe(
        `${grid.url.replace(/^http/, 'ws')}/session/${sessionId}`,
      );
      await browser.url(`${site.url}/`);
      expect(await browser.getTitle()).toBe('gridgate test page');
      expect(await browser.$('#heading').getText()).toBe('Hello from 127.0.0.1');
      const tree = await browser.browsingContextGetTree({});
      expect(tree.contexts.map((context) => context.url)).toEqual([`${site.url}/`]);
      const logged = new Promise<string>((resolve) =>
        browser.on('log.entryAdded', (entry: { text: string | null }) => resolve(entry.text ?? '')),
      );
      await browser.sessionSubscribe({ events: ['log.entryAdded'] });
      await browser.execute(() => console.log('hello over BiDi'));
      expect(await logged).toBe('hello over BiDi');
    } finally {
      await browser.deleteSession();
    }
    await expectWarmBrowserGone(sessionId, warm);
  });

  it('makes a warm browser send the session’s environment colour', async () => {
    const recorder = await startColorRecorder();
    try {
      const warm = await theWarmBrowser();
      const response = await fetch(`${grid.url}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': { color: 'blue' } } },
        }),
      });
      const body = (await response.json()) as {
        value: { sessionId: string; capabilities: Record<string, unknown> };
      };
      expect(response.status, JSON.stringify(body)).toBe(200);
      const { sessionId, capabilities } = body.value;
      try {
        expectOnWarmBrowser(sessionId, warm, capabilities['goog:chromeOptions']);
        await command(sessionId, 'POST', '/url', { url: `${recorder.url}/first` });
        await command(sessionId, 'POST', '/url', { url: `${recorder.url}/second` });
        const pages = recorder.seen.filter((request) => !request.startsWith('/favicon.ico '));
        expect(pages).toEqual(['/first blue', '/second blue']);
      } finally {
        await command(sessionId, 'DELETE');
      }
      await expectWarmBrowserGone(sessionId, warm);
    } finally {
      await recorder.close();
    }
  });

  it('follows a reload of `warm`: 0 stops the warm browser, 1 starts one again', async () => {
    const before = await theWarmBrowser();
    const withWarm = (warm: number) => {
      const local = grid.deps.config.pools.local;
      if (local?.kind !== 'local') throw new Error('the test grid has no local pool');
      // What a reload does (swapConfig): the config is replaced whole, and the grid reads it at call time.
      grid.deps.config = {
        ...grid.deps.config,
        pools: { ...grid.deps.config.pools, local: { ...local, warm } },
      };
    };
    withWarm(0);
    await untilWarm(0);
    // Stopping takes a moment (SIGTERM, then the groups and the profile): /status counts it out at once.
    const stopped = () => !processGroupAlive(before.chromedriver) && !processGroupAlive(before.chromium.pid);
    await waitUntil(stopped, 'the dismissed warm browser has stopped');
    // Without warm browsers the pool keeps one chromedriver ready, and no Chromium.
    expect(launchedProcesses('chromium')).toEqual([]);
    expect(launchedProcesses('chromedriver').length).toBeLessThanOrEqual(1);
    withWarm(1);
    await theWarmBrowser();
  });

  it('stops the warm browser with the grid and leaves nothing running', async () => {
    const warm = await theWarmBrowser();
    await grid.close();
    expect(processGroupAlive(warm.chromedriver)).toBe(false);
    expect(processGroupAlive(warm.chromium.pid)).toBe(false);
    expect(launchedProcesses()).toEqual([]);
  });
});
