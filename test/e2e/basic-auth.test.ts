/** End to end: selenium-webdriver with credentials in the grid URL, real Chromium, a grid with a users file. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Builder } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';

const TEST_MS = 150_000;
const dir = mkdtempSync(join(tmpdir(), 'gridgate-e2e-users-'));
let grid: TestGrid;
let site: TestPageServer;

beforeAll(async () => {
  const usersFile = join(dir, 'users.htpasswd');
  // Cost 5 is what `htpasswd -B` uses by default.
  writeFileSync(usersFile, `alice:${bcrypt.hashSync('wonder land', 5).replace(/^\$2b\$/, '$2y$')}\n`);
  [grid, site] = await Promise.all([startTestGrid({ usersFile, guest: null }), startTestPageServer()]);
});

afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const withCredentials = (url: string, credentials: string) =>
  url.replace('http://', `http://${credentials}@`);

/** Whether the WebSocket handshake is accepted, or the HTTP status it was refused with. */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number | 'open'> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => {
      socket.close();
      resolve('open');
    });
    socket.once('unexpected-response', (_request, response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    socket.once('error', reject);
  });
}

describe('Basic auth through gridgate', { timeout: TEST_MS }, () => {
  it('creates a session on real Chromium for a user whose credentials are in the URL', async () => {
    const driver = await new Builder()
      .usingServer(withCredentials(grid.url, 'alice:wonder%20land'))
      .forBrowser('chrome')
      .build();
    const sessionId = (await driver.getSession()).getId();
    try {
      expect(grid.deps.tokens.verify(sessionId, 'alice').ok).toBe(true);
      await driver.get(`${site.url}/`);
      expect(await driver.getTitle()).toBe('gridgate test page');

      // The WebSocket the grid hands back (CDP here) asks for the same credentials.
      const cdp = String((await driver.getCapabilities()).get('se:cdp'));
      expect(cdp).toBe(`${grid.url.replace(/^http/, 'ws')}/session/${sessionId}/se/cdp`);
      expect(await upgradeStatus(cdp)).toBe(401);
      const alice = `Basic ${Buffer.from('alice:wonder land').toString('base64')}`;
      expect(await upgradeStatus(cdp, { authorization: alice })).toBe('open');

      // Without credentials the same session ID is refused before it reaches the browser.
      const anonymous = await fetch(`${grid.url}/session/${sessionId}/title`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="gridgate"');
    } finally {
      await driver.quit();
    }
    expect(grid.launcher.running()).toEqual([]);
    const requested = grid.logger.lines.filter((line) => line.event === 'SESSION_REQUESTED');
    expect(requested.map((line) => line.fields.user)).toEqual(['alice']);
  });

  it('refuses to start with a missing users file, naming it', async () => {
    const missing = join(dir, 'missing.htpasswd');
    await expect(startTestGrid({ usersFile: missing })).rejects.toThrow(
      `users file ${missing} cannot be used:\n  - cannot read it: ENOENT`,
    );
  });

  it.each([
    ['no credentials', (url: string) => url, /authentication required/],
    ['a wrong password', (url: string) => withCredentials(url, 'alice:wrong'), /wrong user name or password/],
  ])('refuses a new session with %s and starts no browser', async (_, urlFor, message) => {
    const build = new Builder().usingServer(urlFor(grid.url)).forBrowser('chrome').build();
    await expect(build).rejects.toThrow(message);
    expect(grid.launcher.running()).toEqual([]);
  });
});
