/**
 * End to end on a local pool: unmodified clients upload files from the test machine and fetch what the
 * browser downloaded (Selenium Grid 4's /se/file and /se/files), through gridgate, on real Chromium.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { remote as wdio } from 'webdriverio';
import {
  fileToUpload,
  READ_INPUT,
  TRANSFER_WAIT_MS,
  transferWithSeleniumWebdriver,
  UPLOAD_CONTENT,
  UPLOAD_NAME,
} from '../support/file-transfer-clients';
import { useGridAndSite } from '../support/grid-fixture';
import { runPythonUpload } from '../support/python-selenium';
import { DOWNLOAD_CONTENT, DOWNLOAD_NAME } from '../support/test-page-server';
import { expectSessionEnded, sessionClaims } from './session-ended';

const TEST_MS = 150_000;

const env = useGridAndSite();
const scratch = mkdtempSync(join(tmpdir(), 'gridgate-transfer-e2e-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('file transfer on a local pool', { timeout: TEST_MS }, () => {
  it('uploads with selenium-webdriver’s FileDetector, then fetches a download with getDownloadableFiles/downloadFile', async () => {
    const sessionId = await transferWithSeleniumWebdriver(env.grid.url, env.site.url, scratch);
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
    const upload = fileToUpload(scratch, 'webdriverio');
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
      await browser.waitUntil(async () => (await listed()).includes(DOWNLOAD_NAME), {
        timeout: TRANSFER_WAIT_MS,
      });
      const { files } = (await browser.downloadFile(DOWNLOAD_NAME, target)) as { files: string[] };
      expect(files).toEqual([join(target, DOWNLOAD_NAME)]);
      expect(readFileSync(join(target, DOWNLOAD_NAME), 'utf8')).toBe(DOWNLOAD_CONTENT);
      const { handle } = sessionClaims(env.grid, browser.sessionId);
      await browser.deleteSession();
      // The session's uploads go with it, right after its browser's processes.
      await env.grid.launcher.tornDown(handle);
      expect(existsSync(remotePath)).toBe(false);
    } finally {
      await browser.deleteSession().catch(() => undefined);
    }
  });

  it('uploads with Python Selenium’s send_keys through the Remote driver', async () => {
    const upload = fileToUpload(scratch, 'python');
    const run = await runPythonUpload(env.grid.url, `${env.site.url}/files`, upload);
    expect(existsSync(upload)).toBe(false); // the script removed it before the page read the file
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`uploaded: ${UPLOAD_NAME} ${JSON.stringify(UPLOAD_CONTENT)}`);
  });
});
