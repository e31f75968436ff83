import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumVersion } from '../../functions/pools/local/ensure-chromium';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { hubPoolConfig, type SeleniumGrid, START_MS, startSeleniumGrid } from '../support/selenium-grid';
import { eventually } from '../support/until';

const TEST_MS = 150_000;

let hub: SeleniumGrid | undefined;
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

beforeAll(async () => {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  hub = await startSeleniumGrid(version);
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  grid = await startTestGrid(hubPoolConfig(hub, version, { color: 'green', colorHeader: 'X-YX-COLOR' }));
}, START_MS + 30_000);

afterAll(async () => {
  await grid?.close();
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
  await hub?.stop();
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
    await eventually(async () => expect(await (hub as SeleniumGrid).sessions()).toBe(0), 10_000, 200);
  });
});
