/**
 * End to end on a local pool: unmodified clients upload files from the test machine and fetch what the
 * browser downloaded (Selenium Grid 4's /se/file and /se/files), through gridgate, on real Chromium.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, By } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { FileDetector } from 'selenium-webdriver/remote';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { remote as wdio } from 'webdriverio';
import { useGridAndSite } from '../support/grid-fixture';
import { runPythonUpload } from '../support/python-selenium';
import { DOWNLOAD_CONTENT, DOWNLOAD_NAME } from '../support/test-page-server';
import { expectSessionEnded } from './session-ended';

const TEST_MS = 150_000;
const WAIT_MS = 30_000;
const UPLOAD_NAME = 'to-upload.txt';
const UPLOAD_CONTENT = 'uploaded through gridgate\n';

const env = useGridAndSite();
const scratch = mkdtempSync(join(tmpdir(), 'gridgate-transfer-e2e-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A file on the test's side, in a folder of its own. Each test removes it once sent and before the page
 * reads it: what the page reads is the grid's copy, so the upload really went through /se/file.
 */
function localFile(client: string): string {
  const path = join(mkdtempSync(join(scratch, `${client}-`)), UPLOAD_NAME);
  writeFileSync(path, UPLOAD_CONTENT);
  return path;
}

/** selenium-webdriver 4.46's managed-download methods, which its type definitions lack. */
interface DownloadingDriver {
  getDownloadableFiles(): Promise<string[]>;
  downloadFile(name: string, targetDirectory: string): Promise<void>;
  deleteDownloadableFiles(): Promise<void>;
}

/** The name and text of the file the page's file input holds, as the page itself reads it. */
const READ_INPUT = `const file = document.getElementById('upload').files[0];
return file ? file.text().then((text) => [file.name, text]) : null;`;

describe('file transfer on a local pool', { timeout: TEST_MS }, () => {
  it('uploads with selenium-webdriver’s FileDetector, then fetches a download with getDownloadableFiles/downloadFile', async () => {
    const options = new ChromeOptions();
    (options as unknown as { enableDownloads(): void }).enableDownloads();
    const driver = await new Builder()
      .usingServer(env.grid.url)
      .forBrowser('chrome')
      .setChromeOptions(options)
      .build();
    const downloads = driver as unknown as DownloadingDriver;
    const sessionId = (await driver.getSession()).getId();
    const target = join(scratch, 'selenium-webdriver-downloads');
    const upload = localFile('selenium-webdriver');
    try {
      expect((await driver.getCapabilities()).get('se:downloadsEnabled')).toBe(true);
      driver.setFileDetector(new FileDetector());
      await driver.get(`${env.site.url}/files`);
      await driver.findElement(By.id('upload')).sendKeys(upload);
      rmSync(upload);
      expect(await driver.executeScript(READ_INPUT)).toEqual([UPLOAD_NAME, UPLOAD_CONTENT]);

      await driver.findElement(By.id('download')).click();
      await driver.wait(
        async () => (await downloads.getDownloadableFiles()).includes(DOWNLOAD_NAME),
        WAIT_MS,
      );
      await downloads.downloadFile(DOWNLOAD_NAME, target);
      // selenium-webdriver writes the unzipped file without waiting for it.
      const saved = join(target, DOWNLOAD_NAME);
      await vi.waitFor(() => expect(readFileSync(saved, 'utf8')).toBe(DOWNLOAD_CONTENT), {
        timeout: WAIT_MS,
      });

      await downloads.deleteDownloadableFiles();
      expect(await downloads.getDownloadableFiles()).toEqual([]);
    } finally {
      await driver.quit();
    }
    await expectSessionEnded(env.grid, sessionId);
  });

  it('uploads and downloads with WebdriverIO’s uploadFile and downloadFile', async () => {
    const browser = await wdio({
      hostname: '127.0.0.1',
      port: env.grid.port,
      path: '/',
      logLevel: 'error',
      capabilities: { browserName: 'chrome', 'se:downloadsEnabled': true } as WebdriverIO.Capabilities,
    });
    const target = join(scratch, 'webdriverio-downloads');
    const upload = localFile('webdriverio');
    try {
      const remotePath = await browser.uploadFile(upload);
      rmSync(upload);
      expect(remotePath).toMatch(
        new RegExp(`/gridgate-session-\\d+-\\w+/uploads/upload-\\w+/${UPLOAD_NAME}$`),
      );
      await browser.url(`${env.site.url}/files`);
      await browser.$('#upload').setValue(remotePath);
      expect(await browser.execute(READ_INPUT)).toEqual([UPLOAD_NAME, UPLOAD_CONTENT]);

      await browser.$('#download').click();
      const listed = async () => ((await browser.getDownloadableFiles()) as { names: string[] }).names;
      await browser.waitUntil(async () => (await listed()).includes(DOWNLOAD_NAME), { timeout: WAIT_MS });
      const { files } = (await browser.downloadFile(DOWNLOAD_NAME, target)) as { files: string[] };
      expect(files).toEqual([join(target, DOWNLOAD_NAME)]);
      expect(readFileSync(join(target, DOWNLOAD_NAME), 'utf8')).toBe(DOWNLOAD_CONTENT);
      await browser.deleteSession();
      // The session's uploads went with it.
      expect(existsSync(remotePath)).toBe(false);
    } finally {
      await browser.deleteSession().catch(() => undefined);
    }
  });

  it('uploads with Python Selenium’s send_keys through the Remote driver', async () => {
    const upload = localFile('python');
    const run = await runPythonUpload(env.grid.url, `${env.site.url}/files`, upload);
    expect(existsSync(upload)).toBe(false); // the script removed it before the page read the file
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`uploaded: ${UPLOAD_NAME} ${JSON.stringify(UPLOAD_CONTENT)}`);
  });
});
