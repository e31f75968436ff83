/**
 * End to end on a local pool: chromedriver's CDP endpoints on the WebDriver command path
 * (`POST /session/{id}/goog/cdp/execute`, Selenium's `chromium/send_command` and `…_and_get_result`, and
 * `chromium/send_command_from_websocket`) are held to the session's folder as the se:cdp socket is, so a
 * page's download cannot be pointed at a folder gridgate's user can write. Real Chromium, raw HTTP, selenium-webdriver and Python Selenium; and through a
 * server with worker processes, whose session folders are named after the primary.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPoolConfig } from '../../../../functions/core/config';
import type { PoolRuntime } from '../../../../functions/core/pool-runtime';
import { sessionDirectoryOf } from '../../../../functions/pools/local/session-directories';
import { sessionClaims } from '../../../e2e/session-ended';
import { useGridAndSite } from '../../../support/grid-fixture';
import { startNodeServer } from '../../../support/node-server-process';
import { runPythonCdpCommand } from '../../../support/python-selenium';
import { downloadFromSite } from '../../../support/site-download';
import { DOWNLOAD_CONTENT, DOWNLOAD_NAME } from '../../../support/test-page-server';

const TEST_MS = 150_000;
const CDP_PATHS = ['goog/cdp/execute', 'chromium/send_command', 'chromium/send_command_and_get_result'];
// chromedriver's fourth: a CDP message with a negative id, run as the others' commands are (its answer is null).
const MESSAGE_PATH = 'chromium/send_command_from_websocket';

const env = useGridAndSite();
// A folder gridgate's user can write that is no session's: where the hole put the downloaded file.
let outside: string;
let driver: WebDriver | undefined;

afterEach(async () => {
  await driver?.quit();
  driver = undefined;
  rmSync(outside, { recursive: true, force: true });
});

/** A session with managed downloads at `gridUrl`, its ID, and a fresh outside folder. */
async function managedDownloadsSession(gridUrl = env.grid.url): Promise<string> {
  // Writable by anyone, as /tmp or /dev/shm is: what a namespaced browser's own user could still write to.
  outside = mkdtempSync(join(tmpdir(), 'gridgate-outside-'));
  chmodSync(outside, 0o777);
  driver = await new Builder()
    .usingServer(gridUrl)
    .withCapabilities({ browserName: 'chrome', 'se:downloadsEnabled': true })
    .build();
  return (await driver.getSession()).getId();
}

/** A CDP command sent as a client's raw HTTP request, in the path's own shape; the W3C answer's status and body. */
async function sendCdp(url: string, path: string, cmd: string, params: Record<string, unknown>) {
  const body = path === MESSAGE_PATH ? { id: -1, method: cmd, params } : { cmd, params };
  const response = await fetch(`${url}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { value: Record<string, unknown> } };
}

const allowInto = (downloadPath: string) => ({ behavior: 'allow', downloadPath });

/** Clicks the site's download link and waits until the file is saved in one of the folders; says which. */
const download = (session: WebDriver, folders: Record<string, string>) =>
  downloadFromSite(env.site.url, session, folders);

describe('CDP commands a local session sends over the WebDriver command path', { timeout: TEST_MS }, () => {
  it('refuses Browser.setDownloadBehavior to a folder outside the session on every CDP endpoint', async () => {
    const sessionId = await managedDownloadsSession();
    const folder = sessionDirectoryOf(sessionClaims(env.grid, sessionId).handle) as string;
    const session = `${env.grid.url}/session/${sessionId}`;

    const answers = [];
    for (const path of [...CDP_PATHS, MESSAGE_PATH]) {
      answers.push(await sendCdp(session, path, 'Browser.setDownloadBehavior', allowInto(outside)));
    }

    for (const answer of answers) {
      expect(answer).toEqual({
        status: 400,
        body: {
          value: {
            error: 'invalid argument',
            message: `gridgate refuses Browser.setDownloadBehavior: downloadPath ${JSON.stringify(outside)} is outside this session's folder (${folder})`,
            stacktrace: expect.any(String),
          },
        },
      });
    }
    // The browser took none of them: the download lands in the session's managed downloads, nothing outside.
    const where = await download(driver as WebDriver, { outside, session: join(folder, 'downloads') });
    expect(where).toBe('session');
    expect(readdirSync(outside)).toEqual([]);
  });

  it.each([
    ['goog/cdp/execute', { value: {} }],
    [MESSAGE_PATH, { value: null }],
  ])(
    'let %s land the download outside when the launcher named no folder (the hole this closes)',
    async (path, answered) => {
      const sessionId = await managedDownloadsSession();
      const folder = sessionDirectoryOf(sessionClaims(env.grid, sessionId).handle) as string;
      // The check switched off: the launcher names no folder for its browsers, as a remote pool's does not.
      const runtime = env.grid.deps.runtimes.local as PoolRuntime<LocalPoolConfig>;
      const bounds = runtime.hostPaths;
      delete runtime.hostPaths;
      try {
        const answer = await sendCdp(
          `${env.grid.url}/session/${sessionId}`,
          path,
          'Browser.setDownloadBehavior',
          allowInto(outside),
        );
        expect(answer).toEqual({ status: 200, body: answered });
        expect(await download(driver as WebDriver, { outside, session: join(folder, 'downloads') })).toBe(
          'outside',
        );
      } finally {
        runtime.hostPaths = bounds;
      }
    },
  );

  it('lets a download folder inside the session’s own through, and the download lands there', async () => {
    const sessionId = await managedDownloadsSession();
    const folder = sessionDirectoryOf(sessionClaims(env.grid, sessionId).handle) as string;
    const inside = join(folder, 'downloads', 'by-cdp');

    const answer = await sendCdp(
      `${env.grid.url}/session/${sessionId}`,
      'goog/cdp/execute',
      'Browser.setDownloadBehavior',
      allowInto(inside),
    );

    expect(answer).toEqual({ status: 200, body: { value: {} } });
    expect(await download(driver as WebDriver, { outside, inside })).toBe('inside');
    expect(readFileSync(join(inside, DOWNLOAD_NAME), 'utf8')).toBe(DOWNLOAD_CONTENT);
  });

  it('refuses a body that is not JSON (400) or over 1 MiB (413) before the browser sees it', async () => {
    const sessionId = await managedDownloadsSession();
    const url = `${env.grid.url}/session/${sessionId}/goog/cdp/execute`;
    const post = (body: string) =>
      fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

    const notJson = await post('{"cmd": "Browser.setDownloadBehavior", ');
    const tooLarge = await post(
      JSON.stringify({ cmd: 'Browser.getVersion', params: { pad: 'x'.repeat(1024 * 1024) } }),
    );

    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({
      value: { error: 'invalid argument', message: 'gridgate refuses a CDP command whose body is not JSON' },
    });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ value: { error: 'invalid argument' } });
  });

  it('still answers selenium-webdriver’s sendDevToolsCommand and Python’s execute_cdp_cmd', async () => {
    await managedDownloadsSession();
    const chrome = driver as unknown as {
      sendAndGetDevToolsCommand(cmd: string, params: object): Promise<{ product: string }>;
      sendDevToolsCommand(cmd: string, params: object): Promise<unknown>;
    };

    const version = await chrome.sendAndGetDevToolsCommand('Browser.getVersion', {});
    await chrome.sendDevToolsCommand('Browser.getVersion', {});
    const refused = await chrome
      .sendDevToolsCommand('Browser.setDownloadBehavior', allowInto(outside))
      .catch((error: unknown) => error);
    const python = await runPythonCdpCommand(env.grid.url, outside);

    expect(version.product).toMatch(/^(?:Headless)?Chrome\//);
    expect(refused).toMatchObject({
      name: 'InvalidArgumentError',
      message: expect.stringMatching(/^gridgate refuses Browser\.setDownloadBehavior/),
    });
    expect(python.stderr).toBe('');
    expect(python.stdout).toMatch(/^product: (?:Headless)?Chrome\/\S+\n/);
    expect(python.stdout).toMatch(/\nrefused: gridgate refuses Browser\.setDownloadBehavior: downloadPath /);
    expect(python.code).toBe(0);
  });
});

describe('the same through a server with worker processes', { timeout: TEST_MS }, () => {
  it('holds goog/cdp/execute to the session’s folder in the worker, named after the primary', async () => {
    const server = startNodeServer({ port: 0, host: '127.0.0.1', workers: 2 });
    try {
      const url = await server.url;
      const sessionId = await managedDownloadsSession(url);
      // The primary's launcher made the folder for the managed downloads: gridgate-session-<primary pid>-<handle>.
      const owned = `gridgate-session-${server.child.pid}-`;
      const [name] = readdirSync(tmpdir()).filter((entry) => entry.startsWith(owned));
      const folder = join(tmpdir(), name as string);
      const session = `${url}/session/${sessionId}`;

      // The server's port is the workers' (the primary listens on its own socket): a worker answers these.
      const inside = await sendCdp(
        session,
        'goog/cdp/execute',
        'Browser.setDownloadBehavior',
        allowInto(join(folder, 'downloads')),
      );
      const refused = await sendCdp(
        session,
        'goog/cdp/execute',
        'Browser.setDownloadBehavior',
        allowInto(outside),
      );

      expect(inside).toEqual({ status: 200, body: { value: {} } });
      expect(refused.status).toBe(400);
      expect(refused.body.value).toMatchObject({
        error: 'invalid argument',
        message: expect.stringContaining(`outside this session's folder (${folder})`),
      });
      await driver?.quit();
      driver = undefined;
    } finally {
      await server.stop();
    }
  });
});
