/**
 * End to end on a local pool: a session's CDP (se:cdp) and BiDi (webSocketUrl) clients cannot point its
 * browser's downloads at a folder outside the session's own, so a page's download cannot drop a file into a
 * folder gridgate's user can write (site-packages, an autostart folder). Real Chromium, raw protocol clients,
 * Playwright over se:cdp, and Selenium Grid 4's managed downloads, which still land in the session's folder.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromium } from 'playwright-core';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sessionDirectoryOf } from '../../../../functions/pools/local/session-directories';
import { sessionClaims } from '../../../e2e/session-ended';
import { useGridAndSite } from '../../../support/grid-fixture';
import { startNodeServer } from '../../../support/node-server-process';
import { openProtocolSocket, type ProtocolSocket } from '../../../support/protocol-socket';
import { downloadFromSite } from '../../../support/site-download';
import { DOWNLOAD_CONTENT, DOWNLOAD_NAME } from '../../../support/test-page-server';
import { until } from '../../../support/until';

const TEST_MS = 150_000;

const env = useGridAndSite();
// A folder gridgate's user can write that is no session's: where the hole put the downloaded file.
let outside: string;
let driver: WebDriver | undefined;
let socket: ProtocolSocket | undefined;

afterEach(async () => {
  await socket?.close();
  await driver?.quit();
  [socket, driver] = [undefined, undefined];
  rmSync(outside, { recursive: true, force: true });
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));

/** A session with managed downloads and BiDi, its folder, and a fresh outside folder. */
async function managedDownloadsSession(): Promise<{ sessionId: string; folder: string }> {
  // Writable by anyone, as /tmp or /dev/shm is: what a namespaced browser's own user could still write to.
  outside = mkdtempSync(join(tmpdir(), 'gridgate-outside-'));
  chmodSync(outside, 0o777);
  driver = await new Builder()
    .usingServer(env.grid.url)
    .withCapabilities({ browserName: 'chrome', 'se:downloadsEnabled': true, webSocketUrl: true })
    .build();
  const sessionId = (await driver.getSession()).getId();
  const folder = sessionDirectoryOf(sessionClaims(env.grid, sessionId).handle) as string;
  return { sessionId, folder };
}

/** Clicks the site's download link and waits until the file is saved in one of the folders; says which. */
const download = (session: WebDriver, folders: Record<string, string>) =>
  downloadFromSite(env.site.url, session, folders);

describe('download folders a local session’s CDP and BiDi clients name', { timeout: TEST_MS }, () => {
  it('refuses Browser. and Page.setDownloadBehavior to a folder outside the session over se:cdp', async () => {
    const { folder } = await managedDownloadsSession();
    const capabilities = await (driver as WebDriver).getCapabilities();
    socket = await openProtocolSocket(String(capabilities.get('se:cdp')));

    const browserWide = await socket.send({
      method: 'Browser.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: outside, eventsEnabled: true },
    });
    // `..` and a link planted inside the session's folder lead out too.
    symlinkSync(outside, join(folder, 'planted'));
    const escapes = [];
    for (const downloadPath of [join(folder, '..', basename(outside)), join(folder, 'planted')]) {
      escapes.push(
        await socket.send({
          method: 'Browser.setDownloadBehavior',
          params: { behavior: 'allow', downloadPath },
        }),
      );
    }
    const { targetInfos } = (await socket.send({ method: 'Target.getTargets' })).result as {
      targetInfos: { targetId: string; type: string }[];
    };
    const page = targetInfos.find((target) => target.type === 'page') as { targetId: string };
    const { sessionId } = (
      await socket.send({
        method: 'Target.attachToTarget',
        params: { targetId: page.targetId, flatten: true },
      })
    ).result as { sessionId: string };
    const pageWide = await socket.send({
      sessionId,
      method: 'Page.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: outside },
    });

    // The browser took none of them: the download lands in the session's managed downloads, nothing outside.
    const where = await download(driver as WebDriver, { outside, session: join(folder, 'downloads') });
    expect(where).toBe('session');
    expect(readdirSync(outside)).toEqual([]);
    // Selenium Grid 4's managed downloads (/se/files) list it, as before.
    const managed = driver as unknown as { getDownloadableFiles(): Promise<string[]> };
    expect(await managed.getDownloadableFiles()).toContain(DOWNLOAD_NAME);

    // Each was answered in CDP's error shape, saying why (and on the page's session for the page's command).
    expect(browserWide).toEqual({
      id: expect.any(Number),
      error: {
        code: -32000,
        message: expect.stringMatching(
          /^gridgate refuses Browser\.setDownloadBehavior: downloadPath ".*" is outside this session's folder/,
        ),
      },
    });
    for (const answer of escapes) {
      expect(answer.error).toMatchObject({
        code: -32000,
        message: expect.stringMatching(/outside this session's folder/),
      });
    }
    expect(pageWide).toMatchObject({
      sessionId,
      error: { code: -32000, message: expect.stringMatching(/^gridgate refuses Page\.setDownloadBehavior/) },
    });
  });

  it('lets se:cdp point downloads at a folder inside the session’s own', async () => {
    const { folder } = await managedDownloadsSession();
    socket = await openProtocolSocket(String((await (driver as WebDriver).getCapabilities()).get('se:cdp')));
    const inside = join(folder, 'downloads', 'by-cdp');
    const answer = await socket.send({
      method: 'Browser.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: inside },
    });
    expect(answer).toEqual({ id: expect.any(Number), result: {} });
    expect(await download(driver as WebDriver, { outside, inside })).toBe('inside');
    expect(readFileSync(join(inside, DOWNLOAD_NAME), 'utf8')).toBe(DOWNLOAD_CONTENT);
  });

  it('closes a local session’s se:cdp socket that sends a binary message, which it does not read (1003)', async () => {
    await managedDownloadsSession();
    const raw = new WebSocket(String((await (driver as WebDriver).getCapabilities()).get('se:cdp')));
    await new Promise((resolve, reject) => raw.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => raw.once('close', (code) => resolve(code)));
    raw.send(Buffer.from(JSON.stringify({ id: 1, method: 'Browser.getVersion' })), { binary: true });
    expect(await closed).toBe(1003);
  });

  it('refuses BiDi’s browser.setDownloadBehavior, and CDP carried by goog:cdp.sendCommand, outside the session', async () => {
    const { folder } = await managedDownloadsSession();
    socket = await openProtocolSocket(
      String((await (driver as WebDriver).getCapabilities()).get('webSocketUrl')),
    );
    const bidi = await socket.send({
      method: 'browser.setDownloadBehavior',
      params: { downloadBehavior: { type: 'allowed', destinationFolder: outside } },
    });
    const carried = await socket.send({
      method: 'goog:cdp.sendCommand',
      params: {
        method: 'Browser.setDownloadBehavior',
        params: { behavior: 'allow', downloadPath: outside },
      },
    });

    expect(await download(driver as WebDriver, { outside, session: join(folder, 'downloads') })).toBe(
      'session',
    );
    expect(readdirSync(outside)).toEqual([]);
    expect(bidi).toEqual({
      type: 'error',
      id: expect.any(Number),
      error: 'invalid argument',
      message: expect.stringMatching(
        /^gridgate refuses browser\.setDownloadBehavior: downloadBehavior\.destinationFolder ".*" is outside this session's folder/,
      ),
    });
    expect(carried).toMatchObject({
      type: 'error',
      error: 'invalid argument',
      message: expect.stringMatching(/^gridgate refuses Browser\.setDownloadBehavior/),
    });
  });

  it('lets Playwright connect over se:cdp: its own download folder becomes the session’s', async () => {
    // Writable by anyone, as /tmp or /dev/shm is: what a namespaced browser's own user could still write to.
    outside = mkdtempSync(join(tmpdir(), 'gridgate-outside-'));
    chmodSync(outside, 0o777);
    process.env.SELENIUM_REMOTE_URL = env.grid.url;
    try {
      const browser = await chromium.launch();
      try {
        const [handle] = env.grid.launcher.running();
        const downloads = join(sessionDirectoryOf(handle as string) as string, 'downloads');
        const page = browser.contexts()[0]?.pages()[0] ?? (await browser.newPage());
        await page.goto(`${env.site.url}/files`);
        const [saved] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
        expect(saved.suggestedFilename()).toBe(DOWNLOAD_NAME);
        await until(
          () => existsSync(downloads) && readdirSync(downloads).length === 1,
          'the download is in the session’s folder',
        );
        const [name] = readdirSync(downloads);
        expect(readFileSync(join(downloads, name as string), 'utf8')).toBe(DOWNLOAD_CONTENT);
      } finally {
        await browser.close();
      }
    } finally {
      delete process.env.SELENIUM_REMOTE_URL;
    }
  });
});

describe('the same through a server with worker processes', { timeout: TEST_MS }, () => {
  it('holds a session’s se:cdp to its folder in the worker that relays it, named after the primary', async () => {
    const server = startNodeServer({ port: 0, host: '127.0.0.1', workers: 2 });
    try {
      const url = await server.url;
      // Writable by anyone, as /tmp or /dev/shm is: what a namespaced browser's own user could still write to.
      outside = mkdtempSync(join(tmpdir(), 'gridgate-outside-'));
      chmodSync(outside, 0o777);
      driver = await new Builder()
        .usingServer(url)
        .withCapabilities({ browserName: 'chrome', 'se:downloadsEnabled': true })
        .build();
      // The primary's launcher made the folder for the managed downloads: gridgate-session-<primary pid>-<handle>.
      const owned = `gridgate-session-${server.child.pid}-`;
      const [name] = readdirSync(tmpdir()).filter((entry) => entry.startsWith(owned));
      const folder = join(tmpdir(), name as string);
      socket = await openProtocolSocket(String((await driver.getCapabilities()).get('se:cdp')));
      const inside = await socket.send({
        method: 'Browser.setDownloadBehavior',
        params: { behavior: 'allow', downloadPath: join(folder, 'downloads') },
      });
      const refused = await socket.send({
        method: 'Browser.setDownloadBehavior',
        params: { behavior: 'allow', downloadPath: outside },
      });
      expect(inside).toEqual({ id: expect.any(Number), result: {} });
      expect(refused.error).toMatchObject({ code: -32000, message: expect.stringContaining(folder) });
      await socket.close();
      await driver.quit();
      [socket, driver] = [undefined, undefined];
    } finally {
      await server.stop();
    }
  });
});
