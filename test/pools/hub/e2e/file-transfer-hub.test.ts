/**
 * End to end on a hub pool: uploads and managed downloads pass through gridgate to a real Selenium Grid 4
 * (its node serves /se/file and /se/files itself), with unmodified clients.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumVersion } from '../../../../functions/pools/local/ensure-chromium';
import {
  fileToUpload,
  transferWithSeleniumWebdriver,
  UPLOAD_CONTENT,
  UPLOAD_NAME,
} from '../../../support/file-transfer-clients';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { runPythonUpload } from '../../../support/python-selenium';
import {
  hubPoolConfig,
  type SeleniumGrid,
  START_MS,
  startSeleniumGrid,
} from '../../../support/selenium-grid';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { eventually } from '../../../support/until';

const TEST_MS = 150_000;

let hub: SeleniumGrid | undefined;
let grid: TestGrid;
let site: TestPageServer;
const scratch = mkdtempSync(join(tmpdir(), 'gridgate-transfer-hub-'));

beforeAll(async () => {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  hub = await startSeleniumGrid(version);
  [grid, site] = await Promise.all([startTestGrid(hubPoolConfig(hub, version)), startTestPageServer()]);
}, START_MS + 30_000);

afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  await hub?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('file transfer on a Selenium Grid 4 hub pool', { timeout: TEST_MS }, () => {
  it('uploads and downloads with selenium-webdriver through gridgate, served by the hub', async () => {
    await transferWithSeleniumWebdriver(`${grid.url}/wd/hub`, site.url, scratch);
    // The hub frees its slot a moment after the DELETE it was sent.
    await eventually(async () => expect(await (hub as SeleniumGrid).sessions()).toBe(0), 30_000);
  });

  it('uploads with Python Selenium’s send_keys', async () => {
    const run = await runPythonUpload(grid.url, `${site.url}/files`, fileToUpload(scratch, 'python'));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`uploaded: ${UPLOAD_NAME} ${JSON.stringify(UPLOAD_CONTENT)}`);
  });
});
