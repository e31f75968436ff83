/**
 * End to end: a person's Chromium, itself driven through gridgate by selenium-webdriver, watches another
 * session on the status page, sees its live screen, ends it with the button and sees it gone; and reads which
 * protocol each session speaks (WebDriver, CDP, Playwright), as the overview and a session's page render it.
 */

import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { Builder, By, until, type WebDriver } from 'selenium-webdriver';
import { Options } from 'selenium-webdriver/chrome';
import { describe, expect, it } from 'vitest';
import { useGridAndSite } from '../support/grid-fixture';
import { expectSessionEnded, sessionClaims } from './session-ended';

// Generous waits and test time: real Chromium on a busy 2-core machine can be slow (no timing is asserted).
const WAIT_MS = 30_000;
const TEST_MS = 180_000;

const env = useGridAndSite();

function chrome(name?: string): Promise<WebDriver> {
  const options = new Options();
  options.windowSize({ width: 1280, height: 900 });
  if (name) options.set('se:name', name);
  return new Builder().usingServer(env.grid.url).forBrowser('chrome').setChromeOptions(options).build();
}

/** The text of each cell of the overview's row for that session. */
async function rowCells(viewer: WebDriver, key: string): Promise<string[]> {
  const row = await viewer.wait(until.elementLocated(By.css(`#sessions tr[data-session="${key}"]`)), WAIT_MS);
  return Promise.all((await row.findElements(By.css('td'))).map((cell) => cell.getText()));
}

describe('the status page in a real browser', { timeout: TEST_MS }, () => {
  it('lists a running session, shows it live, ends it with the button and then no longer lists it', async () => {
    const watched = await chrome('watched test');
    const watchedId = (await watched.getSession()).getId();
    const { key } = sessionClaims(env.grid, watchedId);
    let viewer: WebDriver | undefined;
    try {
      await watched.get(`${env.site.url}/`);
      expect(await watched.getTitle()).toBe('gridgate test page');
      const record = await env.grid.deps.sessions.get(key);
      expect(record?.browserVersion).toBe(env.grid.chromiumVersion);

      viewer = await chrome();
      await viewer.get(`${env.grid.url}/ui`);
      const cells = await rowCells(viewer, key);
      expect(cells.slice(0, 6)).toEqual([
        key,
        'watched test',
        'guest',
        `${record?.browserName} ${record?.browserVersion}`,
        'local',
        '—',
      ]);
      // Two commands went through gridgate: Navigate To, then Get Title.
      expect(cells[8]).toBe('2 · GET /title');
      // A local browser is not billed per session: no cost shown.
      expect(cells[9]).toBe('—');
      expect(cells[10]).toBe('running');
      const pool = await viewer.findElement(By.css('#pools tr[data-pool="local"]'));
      // Both sessions, the watched one and the viewer's own, hold a slot of the local pool.
      expect((await pool.findElements(By.css('td'))).length).toBe(7);
      expect(await (await pool.findElements(By.css('td')))[4]?.getText()).toBe('2');
      expect(await viewer.findElement(By.id('viewer')).getText()).toBe('guest');

      await viewer.findElement(By.css(`#sessions tr[data-session="${key}"] a`)).click();
      await viewer.wait(until.urlContains(`ui?session=${key}`), WAIT_MS);
      await viewer.wait(until.elementTextContains(viewer.findElement(By.id('details')), 'running'), WAIT_MS);
      expect(await viewer.findElement(By.id('details')).getText()).toContain(
        `chrome ${record?.browserVersion}`,
      );
      expect(await viewer.findElement(By.id('events')).getText()).toContain('created');
      expect(await viewer.findElement(By.id('events')).getText()).toContain(
        'last command: GET /title (2 commands in all)',
      );
      // A local pool has no VNC: the live view is screenshots.
      expect(await viewer.findElement(By.id('vnc')).isDisplayed()).toBe(false);

      // A live image: a decoded screenshot now, and a fresh one a few seconds later.
      const screen = viewer.findElement(By.id('screen'));
      const shownImage = async () =>
        (await viewer?.executeScript(
          'var img = document.getElementById("screen"); return img.complete && img.naturalWidth > 0 ? img.src : null;',
        )) as string | null;
      const first = await viewer.wait(shownImage, WAIT_MS);
      expect(first).toMatch(/^blob:/);
      expect(Number(await screen.getAttribute('naturalWidth'))).toBeGreaterThan(100);
      await viewer.wait(async () => {
        const now = await shownImage();
        return now !== null && now !== first;
      }, WAIT_MS);

      await viewer.findElement(By.id('end-session')).click();
      await viewer.wait(until.alertIsPresent(), WAIT_MS);
      await viewer.switchTo().alert().accept();
      await viewer.wait(
        until.elementTextIs(viewer.findElement(By.id('end-status')), 'Session ended.'),
        WAIT_MS,
      );
      await viewer.wait(
        until.elementTextContains(viewer.findElement(By.id('events')), 'ended: deleted'),
        WAIT_MS,
      );
      expect(await viewer.findElement(By.id('end-session')).isEnabled()).toBe(false);
      await expect(watched.getTitle()).rejects.toMatchObject({ name: 'NoSuchSessionError' });

      await viewer.findElement(By.linkText('← All sessions')).click();
      const viewerKey = sessionClaims(env.grid, (await viewer.getSession()).getId()).key;
      await rowCells(viewer, viewerKey);
      expect(await viewer.findElements(By.css(`#sessions tr[data-session="${key}"]`))).toEqual([]);
    } finally {
      await viewer?.quit();
      // Its session is over; the client's DELETE only hears so.
      await watched.quit().catch(() => undefined);
    }
    await expectSessionEnded(env.grid, watchedId);
  });

  it('says which protocol each session speaks: a mark in its row, a Protocol line on its page', async () => {
    const ws = env.grid.url.replace(/^http/, 'ws');
    const cdp = await puppeteer.connect({ browserWSEndpoint: `${ws}/devtools/chrome?name=cdp-client` });
    const playwright = await chromium.connect(`${ws}/playwright/chromium?name=playwright-client`);
    let viewer: WebDriver | undefined;
    try {
      viewer = await chrome('the viewer');
      const running = await env.grid.deps.sessions.running();
      const keyOf = (name: string) => running.find((session) => session.name === name)?.key as string;
      const sessions = [
        [keyOf('the viewer'), 'WebDriver'],
        [keyOf('cdp-client'), 'CDP'],
        [keyOf('playwright-client'), 'Playwright'],
      ] as const;
      await viewer.get(`${env.grid.url}/ui`);
      for (const [key, protocol] of sessions) {
        // The browser's cell: its name and version, and under them a protocol other than WebDriver.
        const browserCell = (await rowCells(viewer, key))[3]?.split('\n');
        expect(browserCell).toEqual([
          `chrome ${env.grid.chromiumVersion}`,
          ...(protocol === 'WebDriver' ? [] : [protocol]),
        ]);
      }
      for (const [key, protocol] of sessions) {
        await viewer.get(`${env.grid.url}/ui?session=${key}`);
        const line = await viewer.wait(
          until.elementLocated(By.xpath("//dl[@id='details']/dt[.='Protocol']/following-sibling::dd[1]")),
          WAIT_MS,
        );
        expect(await line.getText()).toBe(protocol);
      }
    } finally {
      await viewer?.quit();
      await playwright.close();
      await cdp.disconnect();
    }
  });
});
