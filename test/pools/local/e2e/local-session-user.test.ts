/**
 * End to end on real chromedriver and Chromium: what a local session's client can make its browser read of
 * this machine's files. With the default `isolation: "namespace"` each Chromium runs as a user of its own
 * (functions/pools/local/browser-user.ts), so a `file://` URL or a file input's path opens only what any
 * user may: not gridgate's own files (a 0600 one stands in for a users file or a key), not another session's
 * profile. With `isolation: "none"` Chromium runs as gridgate's user and reads both: the holes this closes.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { By, type WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namespacesUnavailable } from '../../../../functions/pools/local/browser-namespace';
import { chromeSession } from '../../../support/chrome-sessions';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';

const TEST_MS = 120_000;
const SECRET = 'gridgate-only-secret-4f1c';
// Chromium's error pages for a file it may not open (ERR_ACCESS_DENIED) or cannot see past a closed folder.
const FILE_REFUSED = /^(Access to the file was denied|Your file couldn’t be accessed)/;
const unavailable = await namespacesUnavailable();

let folder: string;
let secretFile: string;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'gridgate-own-'));
  chmodSync(folder, 0o755);
  secretFile = join(folder, 'secret.txt');
  writeFileSync(secretFile, SECRET, { mode: 0o600 });
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** What the session's page shows at `url`: its text, or Chromium's error page. */
async function pageText(driver: WebDriver, url: string): Promise<string> {
  await driver.get(url);
  return driver.findElement(By.css('body')).getText();
}

/** The text of `path` as the page reads it after the client typed the path into a file input. */
async function readThroughFileInput(driver: WebDriver, path: string): Promise<string> {
  await driver.get('data:text/html,<input type=file id=f>');
  await driver.findElement(By.id('f')).sendKeys(path);
  return driver.executeAsyncScript<string>(`
    const done = arguments[arguments.length - 1];
    document.getElementById('f').files[0].text().then(done, (error) => done('refused: ' + error.name));
  `);
}

/** A profile folder's `Local State` (JSON Chromium writes at its start), as another session's page shows it. */
async function otherProfileState(grid: TestGrid, reader: WebDriver): Promise<string> {
  const other = await chromeSession(grid.url, new ChromeOptions());
  try {
    const profile = ((await other.getCapabilities()).get('chrome') as { userDataDir: string }).userDataDir;
    return await pageText(reader, `file://${join(profile, 'Local State')}`);
  } finally {
    await other.quit();
  }
}

describe.skipIf(unavailable)('a local session reading this machine’s files', () => {
  describe('with isolation "namespace" (the default)', () => {
    let grid: TestGrid;
    let driver: WebDriver;
    beforeAll(async () => {
      grid = await startTestGrid();
      driver = await chromeSession(grid.url, new ChromeOptions());
    }, TEST_MS);
    afterAll(async () => {
      await driver?.quit();
      await grid?.close();
    });

    it('opens no file only gridgate’s user may read, by URL or by a file input', {
      timeout: TEST_MS,
    }, async () => {
      const shown = await pageText(driver, `file://${secretFile}`);
      expect(shown).not.toContain(SECRET);
      expect(shown).toMatch(FILE_REFUSED);
      expect(await readThroughFileInput(driver, secretFile)).toMatch(/^refused: /);
      // What any user may read stays readable: the boundary is the user, not a list of paths.
      expect(await pageText(driver, 'file:///etc/os-release')).toContain('Debian');
    });

    it('opens no other session’s profile', { timeout: TEST_MS }, async () => {
      const shown = await otherProfileState(grid, driver);
      expect(shown).not.toMatch(/^\{"/);
      expect(shown).toMatch(FILE_REFUSED);
    });
  });

  describe('with isolation "none" (the holes)', () => {
    let grid: TestGrid;
    let driver: WebDriver;
    beforeAll(async () => {
      grid = await startTestGrid({ isolation: 'none' });
      driver = await chromeSession(grid.url, new ChromeOptions());
    }, TEST_MS);
    afterAll(async () => {
      await driver?.quit();
      await grid?.close();
    });

    it('reads gridgate’s own files and another session’s profile', { timeout: TEST_MS }, async () => {
      expect(await pageText(driver, `file://${secretFile}`)).toContain(SECRET);
      expect(await readThroughFileInput(driver, secretFile)).toBe(SECRET);
      expect(await otherProfileState(grid, driver)).toMatch(/^\{"/);
    });
  });
});
