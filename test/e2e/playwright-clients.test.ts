/**
 * End to end on a local pool: Playwright's own protocol (`chromium.connect`) through the front door, a fresh
 * browser per connection served by a Playwright server of the client's own major.minor: gridgate's
 * playwright-core for 1.65, 1.64 installed on first use from the npm registry its npm config names (the tests'
 * own, on loopback), both at once; a mismatch between the URL's version and the client's refused with
 * Playwright's 428; a server that cannot start refused without its output, which the log keeps; a killed
 * client leaves nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { chromium as chromium164 } from 'playwright-core-1-64';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { sessionDirectoryOf } from '../../functions/pools/local/session-directories';
import { type FakeNpmRegistry, startFakeNpmRegistry } from '../support/fake-npm-registry';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { type GuardedChildren, guardChildren } from '../support/guarded-children';
import { freePortBelowEphemeral } from '../support/processes';
import { killedMidRun, playwrightServers } from '../support/socket-session-clients';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { until } from '../support/until';
import { upgradeOutcome } from '../support/websocket-upgrade';

let grid: TestGrid;
let site: TestPageServer;
let registry: FakeNpmRegistry;
let guard: GuardedChildren;
let cache: string;
const wsUrl = () => grid.url.replace(/^http/, 'ws');

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'gg-pw-cache-'));
  registry = await startFakeNpmRegistry();
  // The npm setting users have, which the grid's installs follow.
  vi.stubEnv('npm_config_registry', registry.url);
  guard = guardChildren();
  [grid, site] = await Promise.all([startTestGrid({ playwrightCache: cache }), startTestPageServer()]);
});
afterAll(async () => {
  await Promise.all([grid?.close(), site?.close(), registry?.close()]);
  vi.unstubAllEnvs();
  guard?.close();
  rmSync(cache, { recursive: true, force: true });
});
afterEach(async () => {
  await until(() => grid.launcher.running().length === 0, 'every session ended');
});

/** The grid's refusal of a Playwright client of `version` that asks for its own version: status and message. */
async function upgradeRefused(version: string): Promise<{ status: number; message: string }> {
  const socket = new WebSocket(`${wsUrl()}/playwright/chromium/playwright-${version}`, {
    headers: { 'user-agent': `Playwright/${version}.0 (x64) node/20` },
  });
  const outcome = await upgradeOutcome(socket);
  if (!('status' in outcome)) throw new Error('the socket opened');
  return { status: outcome.status, message: JSON.parse(outcome.body).value.message };
}

/** How many sessions were asked of the grid so far. */
const requestedSessions = () => grid.logger.lines.filter((line) => line.event === 'SESSION_REQUESTED').length;

describe("Playwright's own protocol through the front door", { timeout: 300_000 }, () => {
  it('serves chromium.connect at /playwright/chromium, a screenshot over 128 KB included', async () => {
    const browser = await chromium.connect(`${wsUrl()}/playwright/chromium?name=pw-connect`);
    try {
      const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
      await page.goto(site.url);
      await page.fill('#name', 'Playwright');
      await page.click('#greet');
      expect(await page.textContent('#result')).toBe('Hello, Playwright');
      // Noise, which PNG cannot shrink: the screenshot's message is far past 128 KB.
      await page.evaluate(() => {
        const canvas = document.createElement('canvas');
        [canvas.width, canvas.height] = [800, 600];
        const context = canvas.getContext('2d') as CanvasRenderingContext2D;
        const pixels = context.createImageData(800, 600);
        for (let i = 0; i < pixels.data.length; i++) pixels.data[i] = Math.floor(Math.random() * 256);
        context.putImageData(pixels, 0, 0);
        document.body.append(canvas);
      });
      const screenshot = await page.screenshot({ type: 'png', fullPage: true });
      expect(screenshot.subarray(1, 4).toString()).toBe('PNG');
      expect(screenshot.length).toBeGreaterThan(1024 * 1024);
      const sessions = await grid.deps.sessions.running();
      expect(sessions.map((session) => session.name)).toEqual(['pw-connect']);
    } finally {
      await browser.close();
    }
    await until(() => playwrightServers(process.pid).length === 0, 'the Playwright server stopped');
  });

  it('serves Playwright 1.64 and 1.65 clients at once, 1.64 installed on first use', async () => {
    const [browser165, browser164] = await Promise.all([
      chromium.connect(`${wsUrl()}/playwright/chromium`),
      chromium164.connect(`${wsUrl()}/playwright/chromium/playwright-1.64`),
    ]);
    try {
      for (const browser of [browser165, browser164]) {
        const page = await browser.newPage();
        await page.goto(site.url);
        expect(await page.title()).toBe('gridgate test page');
      }
      expect(browser164.version()).toBe(browser165.version());
      expect(await grid.deps.sessions.running()).toHaveLength(2);
      expect(registry.requests).toContain('/playwright-core');
    } finally {
      await Promise.all([browser165.close(), browser164.close()]);
    }
  });

  it("refuses a URL's version of another major.minor than the client with Playwright's 428", async () => {
    const requested = requestedSessions();
    const refused = chromium.connect(`${wsUrl()}/playwright/chromium/playwright-1.64`);
    await expect(refused).rejects.toThrow(/428/);
    expect(requestedSessions()).toBe(requested);
  });

  it('says clearly when a version cannot be had from the npm registry', async () => {
    const requested = requestedSessions();
    const refused = await upgradeRefused('0.1');
    expect(refused.status).toBe(500);
    expect(refused.message).toMatch(
      /cannot install Playwright 0\.1 from the npm registry: code ETARGET; notarget No matching version found for playwright-core@~0\.1\.0/,
    );
    // Refused before a slot is taken or a browser started.
    expect(requestedSessions()).toBe(requested);
  });

  it('says clearly when the npm registry cannot be reached, naming its address', async () => {
    const requested = requestedSessions();
    // The user's npm setting, pointing where nothing listens; without npm's retries the outcome comes sooner.
    const unreachable = `http://127.0.0.1:${await freePortBelowEphemeral()}/`;
    vi.stubEnv('npm_config_registry', unreachable);
    vi.stubEnv('npm_config_fetch_retries', '0');
    try {
      const refused = await upgradeRefused('1.63');
      expect(refused.status).toBe(500);
      expect(refused.message).toContain(
        `cannot install Playwright 1.63 from the npm registry: code ECONNREFUSED; FetchError: request to ${unreachable}playwright-core failed`,
      );
    } finally {
      vi.stubEnv('npm_config_registry', registry.url);
      vi.stubEnv('npm_config_fetch_retries', undefined);
    }
    expect(requestedSessions()).toBe(requested);
  });

  it("refuses plainly when the version's Playwright server cannot start, its output logged", async () => {
    // A cache entry that lost its code (a disk cleaned up under it): its Playwright server dies on start with
    // Node's stack and this machine's paths.
    const broken = join(cache, '1.9', 'node_modules', 'playwright-core');
    mkdirSync(broken, { recursive: true });
    writeFileSync(
      join(broken, 'package.json'),
      JSON.stringify({ name: 'playwright-core', version: '1.9.0' }),
    );
    const refused = await upgradeRefused('1.9');
    expect(refused).toEqual({ status: 500, message: 'the Playwright server for the session exited' });
    expect(grid.logger.fieldsOf('REQUEST_FAILED')).toContainEqual(
      expect.objectContaining({
        error: 'the Playwright server for the session exited',
        session: expect.any(String),
        cause: expect.stringMatching(new RegExp(`Cannot find module '${broken}'[\\s\\S]*\\n\\s+at `)),
      }),
    );
  });

  it('leaves no browser, Playwright server or folder behind when the client is killed mid-run', async () => {
    let folder = '';
    let handle = '';
    await killedMidRun(`${wsUrl()}/playwright/chromium`, site.url, async () => {
      const [session] = await grid.deps.sessions.running();
      handle = session?.handle as string;
      folder = sessionDirectoryOf(handle) as string;
      expect(playwrightServers(process.pid).length).toBeGreaterThan(0);
    });
    await until(async () => (await grid.deps.sessions.running()).length === 0, 'the session ended');
    await until(() => grid.launcher.running().length === 0, 'its browser stopped');
    await until(() => playwrightServers(process.pid).length === 0, 'its Playwright server stopped');
    await grid.launcher.tornDown(handle);
    expect(existsSync(folder)).toBe(false);
  });

  it('reached nothing off loopback: the npm installs and the Playwright servers the grid started', () => {
    expect(guard.tried().length).toBeGreaterThan(0);
    expect(guard.outside()).toEqual([]);
  });
});
