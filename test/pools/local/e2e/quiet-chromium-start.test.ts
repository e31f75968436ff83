/**
 * End to end on real chromedriver and Chromium: a session's browser starts without the pages no session sees.
 * Chromium 156 preloads its omnibox popup (a WebUI page, chrome://omnibox-popup.top-chrome/) in a renderer of
 * its own at every start, headless too: that renderer's CPU is what a session's first commands waited behind
 * (bench/README). Its command line says what it is (--top-chrome-webui).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { WebDriver } from 'selenium-webdriver';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromeSession, headlessChromeOptions } from '../../../support/chrome-sessions';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { launchedProcesses } from '../../../support/launched-processes';

const TEST_MS = 60_000;
// Chromium preloads it at its start, before the session answers; a look for a while after rules out a late one.
const LOOK_MS = 2000;

let grid: TestGrid;

beforeAll(async () => {
  grid = await startTestGrid();
});
afterAll(async () => {
  await grid?.close();
});

const parentOf = (pid: string) =>
  readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.split(' ')[1] ?? '';

/**
 * The command lines of the renderer processes of browsers this test's grid started: a renderer's grandparent
 * (its zygote's parent) is the browser's main process. Renderers rewrite the memory /proc shows as their
 * environment, so only a main process still tells whose it is.
 */
function renderers(): string[] {
  const browsers = new Set(launchedProcesses('chromium').map(({ pid }) => String(pid)));
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
        if (!cmdline.includes('--type=renderer')) return [];
        return browsers.has(parentOf(parentOf(pid))) ? [cmdline] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

it(
  'starts no omnibox popup renderer in a session’s browser',
  async () => {
    const driver: WebDriver = await chromeSession(grid.url, headlessChromeOptions());
    try {
      const seen: string[] = [];
      for (const until = Date.now() + LOOK_MS; Date.now() < until; ) {
        seen.push(...renderers());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(seen.length, 'the session’s page has a renderer').toBeGreaterThan(0);
      expect(seen.filter((cmdline) => cmdline.includes('--top-chrome-webui'))).toEqual([]);
    } finally {
      await driver.quit();
    }
  },
  TEST_MS,
);
