/**
 * DNS rebinding with a real Chromium: the victim's browser opens a page at rebind.attacker.example (its
 * resolver maps that name to 127.0.0.1), served by the attacker's site; then the name "points at the
 * grid": the site hands every later request, headers untouched, to a grid that listens on every interface
 * without publicUrl, as the grid of the report did. The page's own fetches reach the grid with the Origin,
 * Host and Fetch Metadata Chromium itself sends. Nothing may start, nothing of the status page may be read.
 */

import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { ServiceBuilder } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { LAUNCHED_BY_ENV } from '../../functions/pools/local/chromedriver-launcher';
import { headlessChromeOptions } from '../support/chrome-sessions';
import { CollectingLogger } from '../support/fakes';

const TEST_MS = 120_000;
const ATTACKER = 'rebind.attacker.example';

let grid: RunningGrid;
let logger: CollectingLogger;
let site: Server;
let victim: WebDriver;

/**
 * The attacker's site: its page once, then, the name rebound, every request passed to the grid as it came
 * (the grid sees what it would see had the browser's next lookup of the name answered the grid's address).
 */
function rebindingSite(gridPort: number): Server {
  let rebound = false;
  return createServer((req, res) => {
    if (!rebound) {
      rebound = true;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
      res.end('<!doctype html><html><head><title>attacker</title></head><body></body></html>');
      return;
    }
    const relayed = request(
      { host: '127.0.0.1', port: gridPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    relayed.on('error', () => res.destroy());
    req.pipe(relayed);
  });
}

beforeAll(async () => {
  logger = new CollectingLogger();
  grid = await startGrid(
    parseConfig({ port: 0, host: '0.0.0.0' }, { builtInBrowserVersion: 'stable' }),
    randomBytes(32),
    logger,
    { reloadPollMs: 0 },
  );
  site = rebindingSite(grid.port);
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const options = headlessChromeOptions();
  options.addArguments(`--host-resolver-rules=MAP ${ATTACKER} 127.0.0.1`);
  // The victim's own browser, driven directly through chromedriver: not a session of the grid.
  victim = await new Builder()
    .forBrowser('chrome')
    .setChromeOptions(options)
    .setChromeService(
      // Marked as gridgate's browsers are, so that the suite's leftover check counts it too.
      new ServiceBuilder('/usr/bin/chromedriver').setEnvironment({
        ...(process.env as Record<string, string>),
        [LAUNCHED_BY_ENV]: String(process.pid),
      }),
    )
    .build();
}, TEST_MS);

afterAll(async () => {
  await victim?.quit();
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
  await grid?.close();
});

interface PageOutcome {
  session?: { status: number; body: { value: { error: string; message: string } } };
  overview?: number;
  error?: string;
}

describe('a page at a name rebound to a grid listening on every interface', () => {
  it(
    'cannot start a session or read the status page through its own origin',
    async () => {
      const { port } = site.address() as AddressInfo;
      await victim.get(`http://${ATTACKER}:${port}/`);
      // What the page's own script does, run in the page: same-origin fetches, JSON allowed without preflight.
      const outcome = (await victim.executeAsyncScript(
        'const done = arguments[arguments.length - 1];' +
          "fetch('/session', { method: 'POST', headers: { 'content-type': 'application/json' }," +
          " body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }) })" +
          '.then((created) => created.json().then((body) => ({ status: created.status, body })))' +
          ".then((session) => fetch('/ui/api/overview').then((overview) => ({ session, overview: overview.status })))" +
          '.then(done, (error) => done({ error: String(error) }));',
      )) as PageOutcome;

      expect(outcome.error).toBeUndefined();
      expect(outcome.session?.status).toBe(403);
      expect(outcome.session?.body.value.error).toBe('invalid argument');
      expect(outcome.session?.body.value.message).toContain(`not ${ATTACKER}:${port}`);
      expect(outcome.session?.body.value.message).toContain('DNS rebinding');
      expect(outcome.overview).toBe(403);
      expect(logger.events()).not.toContain('SESSION_REQUESTED');
      expect(await grid.deps.sessions.running()).toEqual([]);
    },
    TEST_MS,
  );
});
