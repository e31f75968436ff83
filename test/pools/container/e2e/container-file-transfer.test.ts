/**
 * Uploads (/se/file) and managed downloads (/se/files) on a container pool of the docker-selenium look-alike:
 * the Selenium node in the session's container serves them, and gridgate passes them through, as for an ecs
 * task's node, with unmodified clients. The page's download comes from the test site through hostLoopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestImages } from '../../../../scripts/test-images';
import {
  containerImages,
  containersOfPool,
  HOST_LOOPBACK_FROM_PAGES,
  removeContainersOfPool,
  startContainerGrid,
  uniquePoolName,
} from '../../../support/container-grid';
import {
  fileToUpload,
  transferWithSeleniumWebdriver,
  UPLOAD_CONTENT,
  UPLOAD_NAME,
} from '../../../support/file-transfer-clients';
import type { TestGrid } from '../../../support/grid-fixture';
import { runPythonUpload } from '../../../support/python-selenium';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';

const TEST_MS = 150_000;

let images: TestImages;
let site: TestPageServer;
let grid: TestGrid;
const pool = uniquePoolName('transfer');
const scratch = mkdtempSync(join(tmpdir(), 'gridgate-transfer-container-'));
const pageUrl = () => site.url.replace('127.0.0.1', HOST_LOOPBACK_FROM_PAGES);

beforeAll(async () => {
  [images, site] = await Promise.all([containerImages(), startTestPageServer()]);
  grid = await startContainerGrid(pool, { image: images.standaloneChromium, hostLoopback: true });
}, 900_000);

afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  removeContainersOfPool(pool);
  rmSync(scratch, { recursive: true, force: true });
});

describe('file transfer on a container pool of the docker-selenium look-alike', { timeout: TEST_MS }, () => {
  it('uploads and downloads with selenium-webdriver through gridgate, served by the container', async () => {
    await transferWithSeleniumWebdriver(`${grid.url}/wd/hub`, pageUrl(), scratch);
    expect(containersOfPool(pool)).toEqual([]);
  });

  it('uploads with Python Selenium’s send_keys', async () => {
    const run = await runPythonUpload(grid.url, `${pageUrl()}/files`, fileToUpload(scratch, 'python'));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`uploaded: ${UPLOAD_NAME} ${JSON.stringify(UPLOAD_CONTENT)}`);
  });
});
