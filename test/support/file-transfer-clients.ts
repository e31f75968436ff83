/**
 * What the file-transfer end-to-end tests do with an unmodified client, whatever the pool behind the grid:
 * upload a file from the test's side into the test site's file input, and fetch what the browser
 * downloaded. The file on the test's side is removed once sent and before the page reads it, so what the
 * page reads is the grid's copy: the upload really went through /se/file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Builder, By } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { FileDetector } from 'selenium-webdriver/remote';
import { expect } from 'vitest';
import { DOWNLOAD_CONTENT, DOWNLOAD_NAME } from './test-page-server';
import { eventually } from './until';

export const UPLOAD_NAME = 'to-upload.txt';
export const UPLOAD_CONTENT = 'uploaded through gridgate\n';
export const TRANSFER_WAIT_MS = 30_000;

/** The name and text of the file the page's file input holds, as the page itself reads it. */
export const READ_INPUT = `const file = document.getElementById('upload').files[0];
return file ? file.text().then((text) => [file.name, text]) : null;`;

/** A file to upload, in a folder of its own under `scratch`. */
export function fileToUpload(scratch: string, client: string): string {
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

/**
 * selenium-webdriver with enableDownloads(): uploads through its FileDetector, clicks the site's download
 * link, waits for getDownloadableFiles to list it, fetches it with downloadFile, empties the list, quits.
 * Returns the grid's session ID.
 */
export async function transferWithSeleniumWebdriver(
  gridUrl: string,
  siteUrl: string,
  scratch: string,
): Promise<string> {
  const options = new ChromeOptions();
  (options as unknown as { enableDownloads(): void }).enableDownloads();
  const driver = await new Builder()
    .usingServer(gridUrl)
    .forBrowser('chrome')
    .setChromeOptions(options)
    .build();
  const downloads = driver as unknown as DownloadingDriver;
  const sessionId = (await driver.getSession()).getId();
  const target = mkdtempSync(join(scratch, 'selenium-webdriver-downloads-'));
  const upload = fileToUpload(scratch, 'selenium-webdriver');
  try {
    expect((await driver.getCapabilities()).get('se:downloadsEnabled')).toBe(true);
    driver.setFileDetector(new FileDetector());
    await driver.get(`${siteUrl}/files`);
    await driver.findElement(By.id('upload')).sendKeys(upload);
    rmSync(upload);
    expect(await driver.executeScript(READ_INPUT)).toEqual([UPLOAD_NAME, UPLOAD_CONTENT]);

    await driver.findElement(By.id('download')).click();
    const listed = async () => (await downloads.getDownloadableFiles()).includes(DOWNLOAD_NAME);
    await driver.wait(listed, TRANSFER_WAIT_MS);
    await downloads.downloadFile(DOWNLOAD_NAME, target);
    // selenium-webdriver writes the unzipped file without waiting for it.
    const saved = join(target, DOWNLOAD_NAME);
    await eventually(() => expect(readFileSync(saved, 'utf8')).toBe(DOWNLOAD_CONTENT), TRANSFER_WAIT_MS);

    await downloads.deleteDownloadableFiles();
    expect(await downloads.getDownloadableFiles()).toEqual([]);
  } finally {
    await driver.quit();
  }
  return sessionId;
}
