/** End to end: WebdriverIO 9, unmodified and with BiDi on, drives real Chromium through gridgate. */
import { describe, expect, it } from 'vitest';
import { remote } from 'webdriverio';
import { useGridAndSite } from '../support/grid-fixture';
import { expectSessionEnded, sessionClaims } from './session-ended';

type Browser = WebdriverIO.Browser;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// Generous waits and test time: real Chromium on a busy 2-core machine can be slow (no timing is asserted).
const WAIT_MS = 30_000;
const TEST_MS = 150_000;

const env = useGridAndSite();

/** Runs the steps in a fresh BiDi session, deletes it, then checks the session's browser is gone. */
async function inSession(steps: (browser: Browser) => Promise<void>) {
  // A hostname and port mean a remote driver: WebdriverIO neither downloads nor starts one.
  const browser = await remote({
    hostname: '127.0.0.1',
    port: env.grid.port,
    path: '/',
    logLevel: 'error',
    waitforTimeout: WAIT_MS,
    capabilities: { browserName: 'chrome', 'wdio:enforceWebDriverClassic': false },
  });
  const sessionId = browser.sessionId;
  try {
    await steps(browser);
  } finally {
    await browser.deleteSession();
  }
  await expectSessionEnded(env.grid, sessionId);
}

describe('WebdriverIO through gridgate', { timeout: TEST_MS }, () => {
  it('speaks BiDi over the WebSocket gridgate hands back and drives the form', async () => {
    await inSession(async (browser) => {
      expect(browser.isBidi).toBe(true);
      const wsBase = env.grid.url.replace(/^http/, 'ws');
      expect(browser.capabilities.webSocketUrl).toBe(`${wsBase}/session/${browser.sessionId}`);
      expect(env.grid.launcher.running()).toEqual([sessionClaims(env.grid, browser.sessionId).handle]);

      await browser.url(`${env.site.url}/`);
      expect(await browser.getTitle()).toBe('gridgate test page');
      expect(await browser.$('#heading').getText()).toBe('Hello from 127.0.0.1');
      await browser.$('#name').setValue('Grace');
      await browser.$('#greet').click();
      await browser.$('#result').waitUntil(async function (this: WebdriverIO.Element) {
        return (await this.getText()) === 'Hello, Grace';
      });
      expect(await browser.$$('form input, form button').length).toBe(2);

      expect(await browser.execute(() => `${document.title} ${6 * 7}`)).toBe('gridgate test page 42');
      const png = Buffer.from(await browser.takeScreenshot(), 'base64');
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(png.length).toBeGreaterThan(2000);

      // BiDi only: the browsing-context tree, and a console event pushed to us over the socket.
      const tree = await browser.browsingContextGetTree({});
      expect(tree.contexts.map((context) => context.url)).toEqual([`${env.site.url}/`]);
      const logged = new Promise<string>((resolve) =>
        browser.on('log.entryAdded', (entry: { text: string | null }) => resolve(entry.text ?? '')),
      );
      await browser.sessionSubscribe({ events: ['log.entryAdded'] });
      await browser.execute(() => console.log('hello over BiDi'));
      expect(await logged).toBe('hello over BiDi');
    });
  });

  it('reads the site cookie, adds one and switches to a second window and back', async () => {
    await inSession(async (browser) => {
      await browser.url(`${env.site.url}/`);
      expect((await browser.getCookies(['served-by']))[0]?.value).toBe('gridgate-test');
      await browser.setCookies({ name: 'added-by', value: 'webdriverio' });
      expect((await browser.getCookies(['added-by']))[0]?.value).toBe('webdriverio');
      const names = (await browser.getCookies()).map((cookie) => cookie.name).sort();
      expect(names).toEqual(['added-by', 'served-by']);

      const first = await browser.getWindowHandle();
      await browser.$('#open-second').click();
      await browser.waitUntil(async () => (await browser.getWindowHandles()).length === 2);
      const second = (await browser.getWindowHandles()).find((handle) => handle !== first);
      expect(second).toBeDefined();
      await browser.switchToWindow(second as string);
      await browser.waitUntil(async () => (await browser.getTitle()) === 'second page');
      expect(await browser.$('#second').getText()).toBe('second');
      await browser.closeWindow();
      await browser.switchToWindow(first);
      expect(await browser.getWindowHandles()).toEqual([first]);
      expect(await browser.getTitle()).toBe('gridgate test page');
    });
  });
});
