/**
 * Selenoid's paths and X-Selenoid-No-Wait with a real Selenium Grid 4 among the hubs: Grid 4 takes a
 * new session that carries the header (it ignores it) and answers the Selenoid paths it does not serve with
 * its own error, for its own session ID; a full Selenoid beside it refuses at once, so the session
 * lands on Grid 4 without waiting in Selenoid's queue.
 */
import { Builder } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumVersion } from '../../../../functions/pools/local/ensure-chromium';
import { FakeSelenoid } from '../../../support/fake-selenoid';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import {
  hubPoolConfig,
  type SeleniumGrid,
  START_MS,
  startSeleniumGrid,
} from '../../../support/selenium-grid';

const TEST_MS = 150_000;

let hub: SeleniumGrid | undefined;
let selenoid: FakeSelenoid | undefined;
let grid: TestGrid | undefined;

beforeAll(async () => {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  [hub, selenoid] = await Promise.all([startSeleniumGrid(version), FakeSelenoid.start(1)]);
  const config = hubPoolConfig(hub, version);
  // The Selenoid is chosen first (weight) and in another region, so Grid 4 is what is left after it.
  config.pools = {
    ...config.pools,
    selenoid: { kind: 'hub', url: `http://${selenoid.address}/wd/hub`, weight: 1000, region: 'b' },
  } as typeof config.pools;
  config.browsers.chrome.versions[version] = { pools: ['selenoid', 'selenium'] };
  grid = await startTestGrid(config);
}, START_MS + 30_000);

afterAll(async () => {
  await grid?.close();
  await Promise.all([hub?.stop(), selenoid?.close()]);
});

describe('a Selenium Grid 4 hub beside a full Selenoid', { timeout: TEST_MS }, () => {
  it('gets the session at once from Grid 4 and passes Selenoid’s paths to it', async () => {
    const full = selenoid as FakeSelenoid;
    await fetch(`http://${full.address}/wd/hub/session`, { method: 'POST', body: '{}' });
    expect(full.busy).toBe(1);
    const url = (grid as TestGrid).url;
    const driver = await new Builder().usingServer(`${url}/wd/hub`).forBrowser('chrome').build();
    try {
      const sessionId = (await driver.getSession()).getId();
      expect(full.newSessionRequests().at(-1)?.headers['x-selenoid-no-wait']).toBe('');
      expect(await (hub as SeleniumGrid).sessions()).toBe(1);
      expect(await driver.getTitle()).toBe('');

      // Grid 4 records no video: its 404 is gridgate's "no video".
      const video = await fetch(`${url}/video/${sessionId}.mp4`);
      expect(video.status).toBe(404);
      expect(((await video.json()) as { value: { message: string } }).value.message).toMatch(/^no video/);
      // Nor does it serve Selenoid's downloads: its own words come back, naming its own session ID.
      const download = await fetch(`${url}/download/${sessionId}/report.txt`);
      const text = await download.text();
      expect(download.status, text).toBe(404);
      const { message } = (JSON.parse(text) as { value: { message: string } }).value;
      expect(message).toMatch(/^Unable to find handler for \(GET\) \/download\/[0-9a-f]{32}\/report\.txt$/);
      // A forged ID is gridgate's own W3C refusal.
      const forged = await fetch(`${url}/logs/forged-id.log`);
      expect(forged.status).toBe(404);
      expect(((await forged.json()) as { value: { error: string } }).value.error).toBe('invalid session id');
    } finally {
      await driver.quit();
    }
  });
});
