/**
 * End to end: a person's Chromium (driven through gridgate by selenium-webdriver) opens the page of a
 * session whose pool serves noVNC, and the page shows the browser's VNC view live: the noVNC page comes
 * through gridgate and its WebSocket, opened by the path the page gave it, reaches the browser's machine.
 * The machine is a fake noVNC on 127.0.0.1 whose page echoes one message over that WebSocket.
 */
import { Builder, By, until, type WebDriver } from 'selenium-webdriver';
import { Options } from 'selenium-webdriver/chrome';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cleanups, fakeNoVnc, session, vncGrid } from '../support/fake-novnc';
import { useGridAndSite } from '../support/grid-fixture';

const WAIT_MS = 30_000;
const TEST_MS = 120_000;

const env = useGridAndSite();
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// What noVNC does with the page's settings: open the WebSocket at `path` from the root, send the password.
const NOVNC_PAGE = `<!doctype html><title>noVNC</title><body>connecting</body><script>
var params = new URLSearchParams(location.search);
var socket = new WebSocket('ws://' + location.host + '/' + params.get('path'), ['binary']);
socket.onopen = function () { socket.send('password ' + params.get('password')); };
socket.onmessage = function (event) { document.body.textContent = 'echo: ' + event.data; };
socket.onerror = function () { document.body.textContent = 'WebSocket failed'; };
</script>`;

describe('the status page’s VNC view in a real browser', { timeout: TEST_MS }, () => {
  it('shows the browser’s noVNC page, whose WebSocket goes through gridgate', async () => {
    const vnc = await fakeNoVnc(cleanups, NOVNC_PAGE);
    const { grid, port } = await vncGrid(cleanups, vnc.port, { users: false });
    const key = await session(grid, { user: 'guest' });
    const options = new Options();
    options.windowSize({ width: 1280, height: 900 });
    const viewer: WebDriver = await new Builder()
      .usingServer(env.grid.url)
      .forBrowser('chrome')
      .setChromeOptions(options)
      .build();
    try {
      await viewer.get(`http://127.0.0.1:${port}/ui?session=${key}`);
      const frame = await viewer.wait(until.elementLocated(By.css('#vnc:not([hidden])')), WAIT_MS);
      expect(await viewer.findElement(By.id('screen')).isDisplayed()).toBe(false);
      expect(await viewer.findElement(By.id('live-status')).getText()).toBe('Live VNC view.');
      await viewer.switchTo().frame(frame);
      const body = await viewer.findElement(By.css('body'));
      await viewer.wait(until.elementTextContains(body, 'echo:'), WAIT_MS);
      expect(await body.getText()).toBe('echo: password secret');
      expect(vnc.upgrades).toHaveLength(1);
      expect(vnc.requests.filter((path) => path.startsWith('/vnc.html?'))[0]).toContain('view_only=1');
    } finally {
      await viewer.quit();
    }
  });
});
