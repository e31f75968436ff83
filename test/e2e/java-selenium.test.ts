/**
 * End to end: Selenium's Java client (4.48, from the Selenium server jar), unmodified, through gridgate, on
 * the Node server's local Chromium and through a hub pool in front of a real Selenium Grid 4. The session is
 * started by the README's Java example.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumVersion } from '../../functions/pools/local/ensure-chromium';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { JAVA_TIMEOUT_MS, runJavaProgram } from '../support/java-selenium';
import { sessionIdIn } from '../support/python-selenium';
import { hubPoolConfig, type SeleniumGrid, START_MS, startSeleniumGrid } from '../support/selenium-grid';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { eventually } from '../support/until';
import { expectSessionEnded, sessionClaims } from './session-ended';

const COMMAND_CHECKS = [
  'title',
  'heading',
  'result text',
  'screenshot is a PNG',
  'screenshot is not trivial',
];

let site: TestPageServer;
let uploadDir: string;
let uploadFile: string;
beforeAll(async () => {
  site = await startTestPageServer();
  uploadDir = mkdtempSync(join(tmpdir(), 'gridgate-upload-'));
  uploadFile = join(uploadDir, 'notes.txt');
  writeFileSync(uploadFile, 'uploaded through gridgate\n');
});
afterAll(async () => {
  await site?.close();
  rmSync(uploadDir, { recursive: true, force: true });
});

function checksIn(stdout: string): string[] {
  return [...stdout.matchAll(/^ok: (.+)$/gm)].map((match) => match[1] as string);
}

describe('the Java client on the Node server', { timeout: JAVA_TIMEOUT_MS + 30_000 }, () => {
  let grid: TestGrid;
  beforeAll(async () => {
    grid = await startTestGrid();
  });
  afterAll(() => grid?.close());

  it('starts a session with the README example, runs commands, takes a screenshot, uploads a file with LocalFileDetector and quits', async () => {
    const run = await runJavaProgram(grid.url, site.url, uploadFile);
    expect(run.code, run.stderr).toBe(0);
    expect(checksIn(run.stdout)).toEqual([...COMMAND_CHECKS, 'uploaded file name', 'uploaded file contents']);
    await expectSessionEnded(grid, sessionIdIn(run.stdout));
  });
});

describe('the Java client through a hub pool', { timeout: JAVA_TIMEOUT_MS + 30_000 }, () => {
  let hub: SeleniumGrid;
  let grid: TestGrid;
  beforeAll(async () => {
    const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
    hub = await startSeleniumGrid(version);
    grid = await startTestGrid(hubPoolConfig(hub, version));
  }, START_MS + 30_000);
  afterAll(async () => {
    await grid?.close();
    await hub?.stop();
  });

  it('runs commands, uploads a file with LocalFileDetector and quits at the hub', async () => {
    const run = await runJavaProgram(grid.url, site.url, uploadFile);
    expect(run.code, run.stderr).toBe(0);
    expect(checksIn(run.stdout)).toEqual([...COMMAND_CHECKS, 'uploaded file name', 'uploaded file contents']);
    expect(run.stdout).toMatch(/^passed: 7 checks$/m);
    const { key } = sessionClaims(grid, sessionIdIn(run.stdout));
    const events = grid.logger.lines.filter((line) => line.fields.session === key).map((line) => line.event);
    expect(events).toEqual(['SESSION_REQUESTED', 'SESSION_CREATED', 'SESSION_DELETED']);
    // The hub frees its slot a moment after it answered the DELETE.
    await eventually(async () => expect(await hub.sessions()).toBe(0), 10_000, 200);
  });
});
