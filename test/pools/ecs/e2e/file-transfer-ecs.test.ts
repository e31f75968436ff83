/**
 * End to end on an ecs pool: each (fake) Fargate task runs the Selenium server standalone a docker-selenium
 * image runs, with managed downloads on; uploads and downloads pass through gridgate to it unchanged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeEcsApi } from '../../../support/fake-ecs-api';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import {
  fileToUpload,
  transferWithSeleniumWebdriver,
  UPLOAD_CONTENT,
  UPLOAD_NAME,
} from '../../../support/file-transfer-clients';
import { runPythonUpload } from '../../../support/python-selenium';
import type { ServedApp } from '../../../support/served-app';
import type { TestPageServer } from '../../../support/test-page-server';

// A JVM starts in each task: slower than chromedriver, all the more on a loaded machine.
const TEST_MS = 240_000;

let fargate: FakeFargateGrid | undefined;
let fake: FakeEcsApi;
let site: TestPageServer;
let grid: ServedApp;
const scratch = mkdtempSync(join(tmpdir(), 'gridgate-transfer-ecs-'));

beforeAll(async () => {
  fargate = await startFakeFargateGrid({
    browser: 'selenium-server',
    config: { timeouts: { newSession: '180s' } },
  });
  ({ fake, site, grid } = fargate);
});

afterAll(async () => {
  await fargate?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('file transfer on an ecs pool (Selenium server tasks)', { timeout: TEST_MS }, () => {
  it('uploads and downloads with selenium-webdriver, served by the task’s node', async () => {
    await transferWithSeleniumWebdriver(grid.url, site.url, scratch);
    const [task] = [...fake.tasks.values()];
    expect(fake.callsOf('StopTask')).toEqual([
      { cluster: 'gridgate-browsers', task: task?.id, reason: 'gridgate: deleted' },
    ]);
  });

  it('uploads with Python Selenium’s send_keys', async () => {
    const run = await runPythonUpload(grid.url, `${site.url}/files`, fileToUpload(scratch, 'python'));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`uploaded: ${UPLOAD_NAME} ${JSON.stringify(UPLOAD_CONTENT)}`);
  });
});
