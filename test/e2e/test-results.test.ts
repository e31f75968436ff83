/**
 * End to end on real Chromium: tests mark their own result the ways their clients already do (Python with
 * Sauce Labs' `sauce:job-result=failed`, Java with Grid 4.41's `fireSessionEvent`, WebdriverIO with
 * BrowserStack's `setSessionStatus`), under `recording.keep: failed`: only the failed sessions' videos exist
 * afterwards, the status page shows each result, why a video is missing and links to each session's captured
 * console and HAR, in its list and on each session's own page, and another user gets 404.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Builder, By, type WebDriver } from 'selenium-webdriver';
import { Options } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remote } from 'webdriverio';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { runJavaFile } from '../support/java-selenium';
import { runPythonMarkedSession, sessionIdIn } from '../support/python-selenium';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { eventually } from '../support/until';
import { sessionClaims } from './session-ended';

// Generous: a JVM, a Python interpreter and four Chromiums on a busy 2-core machine (no timing is asserted).
const TEST_MS = 400_000;
const WAIT_MS = 30_000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ALICE = { authorization: `Basic ${Buffer.from('alice:alice-pw').toString('base64')}` };

const scratch = mkdtempSync(join(tmpdir(), 'gridgate-test-results-'));
const kept = join(scratch, 'kept');
let grid: TestGrid;
let site: TestPageServer;

beforeAll(async () => {
  const usersFile = join(scratch, 'users.htpasswd');
  const sha = (password: string) => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
  writeFileSync(usersFile, `alice:${sha('alice-pw')}\n`);
  [grid, site] = await Promise.all([
    // Guests are let in (the clients below sign in as nobody); alice is the other user.
    // Every session's console and network are captured too: the page's Logs column links them.
    startTestGrid({
      usersFile,
      recording: { directory: kept, video: true, keep: 'failed', console: true, network: true },
    }),
    startTestPageServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

/** A WebdriverIO session on classic WebDriver that names itself and passes, as BrowserStack's users do. */
async function webdriverioPassed(): Promise<string> {
  const browser = await remote({
    hostname: '127.0.0.1',
    port: grid.port,
    path: '/',
    logLevel: 'error',
    capabilities: {
      browserName: 'chrome',
      'wdio:enforceWebDriverClassic': true,
      'bstack:options': { sessionName: 'wdio cart', buildName: 'nightly-7' },
    },
  });
  try {
    await browser.url(`${site.url}/`);
    await browser.execute(
      'browserstack_executor: {"action": "setSessionStatus", "arguments": {"status": "passed", "reason": "all good"}}',
    );
  } finally {
    await browser.deleteSession();
  }
  return browser.sessionId;
}

const video = (id: string, headers: Record<string, string> = {}) =>
  fetch(`${grid.url}/video/${id}.mp4`, { headers });

/**
 * What `read` finds on the page, read again until it can be read whole: the list is drawn anew when what it
 * shows changes, which leaves elements found a moment before stale.
 */
async function readSteadily<T>(viewer: WebDriver, read: () => Promise<T | undefined>): Promise<T> {
  let found: T | undefined;
  await viewer.wait(async () => {
    try {
      found = await read();
      return found !== undefined;
    } catch (error) {
      if ((error as Error).name === 'StaleElementReferenceError') return false;
      throw error;
    }
  }, WAIT_MS);
  return found as T;
}

/** The ended sessions' list on the status page, in a real browser: each row's cells by session key. */
async function recordingRows(viewer: WebDriver, keys: string[]): Promise<Map<string, string[]>> {
  await viewer.get(`${grid.url}/ui`);
  return readSteadily(viewer, async () => {
    const rows = new Map<string, string[]>();
    for (const key of keys) {
      const row = await viewer.findElements(By.css(`#recordings tr[data-key="${key}"]`));
      if (!row[0]) return undefined;
      rows.set(
        key,
        await Promise.all((await row[0].findElements(By.css('td'))).map((cell) => cell.getText())),
      );
    }
    return rows;
  });
}

/** The Recordings row of an ended session's own page, in a real browser: its text and its links' targets. */
async function recordingsOnPage(viewer: WebDriver, key: string): Promise<{ text: string; hrefs: string[] }> {
  await viewer.get(`${grid.url}/ui?session=${key}`);
  return readSteadily(viewer, async () => {
    const names = await Promise.all(
      (await viewer.findElements(By.css('#details dt'))).map((term) => term.getText()),
    );
    const row = (await viewer.findElements(By.css('#details dd')))[names.indexOf('Recordings')];
    if (!row) return undefined;
    const links = await row.findElements(By.css('a'));
    return {
      text: await row.getText(),
      hrefs: await Promise.all(links.map(async (link) => String(await link.getAttribute('href')))),
    };
  });
}

describe('tests that say how they went', { timeout: TEST_MS }, () => {
  it('keeps only the failed sessions’ videos, shows each result, and hides them from another user', async () => {
    const [python, java] = await Promise.all([
      runPythonMarkedSession(grid.url, site.url, 'failed', 'python checkout'),
      runJavaFile('MarkFailed.java', [grid.url, site.url]),
    ]);
    expect(python.code, python.stderr).toBe(0);
    expect(java.code, java.stderr).toBe(0);
    // Grid 4.41's answer, as the Java client hands it back.
    expect(java.stdout).toMatch(/^event: \{.*success=true.*\}$/m);
    const wdioId = await webdriverioPassed();
    const ids = { python: sessionIdIn(python.stdout), java: sessionIdIn(java.stdout), wdio: wdioId };
    const keys = Object.fromEntries(
      Object.entries(ids).map(([who, id]) => [who, sessionClaims(grid, id).key]),
    );

    expect(await grid.deps.sessions.get(keys.python as string)).toMatchObject({
      name: 'python checkout',
      result: { status: 'failed' },
    });
    expect(await grid.deps.sessions.get(keys.java as string)).toMatchObject({
      name: 'java checkout',
      result: { status: 'failed', reason: 'expected 42, got 41' },
    });
    expect(await grid.deps.sessions.get(keys.wdio as string)).toMatchObject({
      name: 'wdio cart',
      build: 'nightly-7',
      result: { status: 'passed', reason: 'all good' },
    });

    // The failed sessions' videos are served to their owner; the passed one's was deleted at its end.
    await eventually(async () => {
      expect((await video(ids.python)).status).toBe(200);
      expect((await video(ids.java)).status).toBe(200);
    }, WAIT_MS);
    expect((await video(ids.wdio)).status).toBe(404);
    expect(readdirSync(join(kept, keys.wdio as string)).filter((file) => file.startsWith('video'))).toEqual(
      [],
    );
    expect(existsSync(join(kept, keys.python as string, 'video.mp4'))).toBe(true);

    // Another user: the same 404 as for a session that does not exist, for the video and for marking.
    expect((await video(ids.python, ALICE)).status).toBe(404);
    const marking = await fetch(`${grid.url}/ui/api/sessions/${ids.python}`, {
      method: 'PUT',
      headers: { ...ALICE, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'passed' }),
    });
    expect(marking.status).toBe(404);
    expect((await grid.deps.sessions.get(keys.python as string))?.result?.status).toBe('failed');

    // The status page, in a real browser: each result, and why the passed session has no video.
    const options = new Options();
    options.windowSize({ width: 1400, height: 1300 });
    const viewer = await new Builder()
      .usingServer(grid.url)
      .forBrowser('chrome')
      .setChromeOptions(options)
      .build();
    try {
      const rows = await recordingRows(viewer, Object.values(keys) as string[]);
      // Ended, Test, User, Browser, Ended by, Result, Video, …
      expect(rows.get(keys.python as string)?.[5]).toBe('failed');
      expect(rows.get(keys.java as string)?.[5]).toBe('failed: expected 42, got 41');
      expect(rows.get(keys.wdio as string)?.[5]).toBe('passed: all good');
      expect(rows.get(keys.wdio as string)?.[1]).toContain('build nightly-7');
      expect(rows.get(keys.wdio as string)?.[6]).toBe('not kept: the test passed (recording.keep: failed)');
      expect(rows.get(keys.python as string)?.[7]).toBe('console · HAR');
      const screenshot = Buffer.from(await viewer.takeScreenshot(), 'base64');
      expect(screenshot.subarray(0, 8)).toEqual(PNG_SIGNATURE);
      // All three results, before filtering. The docs' picture is made by this very test: GRIDGATE_DOCS_SCREENSHOTS=1 writes it.
      if (process.env.GRIDGATE_DOCS_SCREENSHOTS) {
        writeFileSync(
          fileURLToPath(new URL('../../docs/status-page-results.png', import.meta.url)),
          screenshot,
        );
      }
      const failedOnly = await viewer.findElement(By.id('recordings-result'));
      await failedOnly.sendKeys('failed');
      await readSteadily(viewer, async () => {
        const shown = await viewer.findElements(By.css('#recordings tbody tr[data-key]'));
        const shownKeys = await Promise.all(shown.map((row) => row.getAttribute('data-key')));
        return shownKeys.sort().join() === [keys.python, keys.java].sort().join() || undefined;
      });
      // Each ended session's own page links what it kept, or says why its video is missing.
      const failedPage = await recordingsOnPage(viewer, keys.python as string);
      expect(failedPage.text).toMatch(/^video · (driver log · )?console · HAR$/);
      // Ended: no live view, and no word of screenshots to come.
      expect(await viewer.findElement(By.id('live-status')).getText()).toBe(
        'The session has ended: no live view.',
      );
      expect(await viewer.findElement(By.id('screen-note')).isDisplayed()).toBe(false);
      for (const href of failedPage.hrefs) expect((await fetch(href)).status, href).toBe(200);
      // The docs' picture of a session's page, made here as the list's is.
      if (process.env.GRIDGATE_DOCS_SCREENSHOTS) {
        writeFileSync(
          fileURLToPath(new URL('../../docs/status-page-session.png', import.meta.url)),
          Buffer.from(await viewer.takeScreenshot(), 'base64'),
        );
      }
      expect((await fetch(failedPage.hrefs[0] as string, { headers: ALICE })).status).toBe(404);
      const passedPage = await recordingsOnPage(viewer, keys.wdio as string);
      expect(passedPage.text).toContain('video not kept: the test passed (recording.keep: failed)');
      expect(passedPage.text).not.toMatch(/^video/);
    } finally {
      await viewer.quit();
    }
  });
});
