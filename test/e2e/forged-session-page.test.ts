/**
 * A hostile web page, open in a real Chromium on the grid's machine, tries to start a session that runs
 * a shell command: it auto-submits a text/plain form whose body is new-session JSON asking for
 * `--renderer-cmd-prefix`. The grid runs with the built-in defaults (guest access on): in this process,
 * and as `npm start` itself (the production build, a config that only picks a free port); the page is
 * served from another loopback origin. Nothing may start and the command may not run.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, By, until, type WebDriver } from 'selenium-webdriver';
import { ServiceBuilder } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headlessChromeOptions } from '../support/chrome-sessions';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';

const TEST_MS = 120_000;

let grid: TestGrid;
let hostile: Server;
let browser: WebDriver;
let npmStart: NodeServerProcess | undefined;
/** Where the hostile page's form posts: the grid under test. */
let target = '';
const dir = mkdtempSync(join(tmpdir(), 'gridgate-forged-'));
const marker = join(dir, 'owned');

/**
 * A form with enctype text/plain sends `name=value`: the name opens the JSON and a dummy extension
 * capability, the "=" lands inside that capability's string and the value closes it. Chromium splits the prefix at
 * spaces, so ${IFS} keeps the shell command in one word.
 */
function hostilePage(target: string): string {
  const prefix = `--renderer-cmd-prefix=/bin/sh -c touch\${IFS}${marker}`;
  const name = `{"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":{"args":["${prefix}"]},"x:pad":"`;
  const attribute = (text: string) => text.replaceAll('&', '&amp;').replaceAll("'", '&#39;');
  return `<!doctype html><html><body>
<form id="forged" method="POST" action="${target}" enctype="text/plain">
  <input type="hidden" name='${attribute(name)}' value='${attribute('"}}}')}'>
</form>
<script>document.getElementById('forged').submit();</script>
</body></html>`;
}

beforeAll(async () => {
  grid = await startTestGrid();
  hostile = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostilePage(target));
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  // The victim's own browser, driven directly through chromedriver: not a session of the grid.
  browser = await new Builder()
    .forBrowser('chrome')
    .setChromeOptions(headlessChromeOptions())
    .setChromeService(new ServiceBuilder('/usr/bin/chromedriver'))
    .build();
}, TEST_MS);

afterAll(async () => {
  await npmStart?.stop();
  await browser?.quit();
  hostile?.closeAllConnections();
  await new Promise((resolve) => hostile?.close(resolve));
  await grid?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens the hostile page in the victim's browser; resolves to the grid's answer to the forged form. */
async function submitForgedForm(gridUrl: string): Promise<{ answer: unknown; pageOrigin: string }> {
  target = `${gridUrl}/session`;
  const { port } = hostile.address() as AddressInfo;
  await browser.get(`http://127.0.0.1:${port}/`);
  // The form's answer replaces the page once the grid has answered the POST.
  await browser.wait(until.urlIs(target), 90_000);
  const answer = JSON.parse(await browser.findElement(By.css('body')).getText()) as unknown;
  return { answer, pageOrigin: `http://127.0.0.1:${port}` };
}

const refusedAnswer = (pageOrigin: string) => ({
  value: {
    error: 'invalid argument',
    message: expect.stringContaining(`web pages of ${pageOrigin} are refused`),
  },
});

describe('a hostile page in a browser on the grid’s machine', () => {
  it(
    'cannot start a session or run a command through a forged text/plain form',
    async () => {
      const { answer, pageOrigin } = await submitForgedForm(grid.url);
      expect(existsSync(marker), 'the command in --renderer-cmd-prefix ran').toBe(false);
      expect(grid.logger.fieldsOf('SESSION_REQUESTED')).toEqual([]);
      expect(grid.launcher.running()).toEqual([]);
      expect(answer).toMatchObject(refusedAnswer(pageOrigin));
    },
    TEST_MS,
  );

  it(
    'cannot do it against npm start with its defaults either',
    async () => {
      npmStart = startNodeServer({ port: 0 });
      const { answer, pageOrigin } = await submitForgedForm(await npmStart.url);
      expect(existsSync(marker), 'the command in --renderer-cmd-prefix ran').toBe(false);
      expect(npmStart.lines.map((line) => line.event)).not.toContain('SESSION_REQUESTED');
      expect(answer).toMatchObject(refusedAnswer(pageOrigin));
    },
    TEST_MS,
  );
});
