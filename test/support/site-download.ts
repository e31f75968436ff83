/**
 * The test site's download, clicked in a session: which of the given folders the browser saved it in,
 * for the tests of where a session's downloads may go.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { By, type WebDriver } from 'selenium-webdriver';
import { DOWNLOAD_NAME } from './test-page-server';
import { until } from './until';

/** Clicks the site's download link and waits until the file is saved in one of the folders; says which. */
export async function downloadFromSite(
  siteUrl: string,
  session: WebDriver,
  folders: Record<string, string>,
): Promise<string | undefined> {
  await session.get(`${siteUrl}/files`);
  await session.findElement(By.id('download')).click();
  return until(
    () => Object.entries(folders).find(([, folder]) => existsSync(join(folder, DOWNLOAD_NAME)))?.[0],
    `${DOWNLOAD_NAME} is saved in one of ${Object.values(folders).join(', ')}`,
  );
}
