/**
 * End to end on a local pool: a Playwright connection that asks `?enableVideo=true` (Moon's option) is
 * recorded as a WebDriver session that asks for its video: once the socket closes, the status page lists it
 * under its test name and serves an H.264 video of it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { eventually } from '../support/until';
import { probeVideo } from '../support/video-probe';

let grid: TestGrid;
let site: TestPageServer;
const scratch = mkdtempSync(join(tmpdir(), 'gg-socket-video-'));

beforeAll(async () => {
  [grid, site] = await Promise.all([
    startTestGrid({ recording: { directory: join(scratch, 'kept') } }),
    startTestPageServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

describe('recording a session that is a WebSocket', { timeout: 180_000 }, () => {
  it('records a Playwright connection that asks enableVideo=true, listed by its name', async () => {
    const ws = grid.url.replace(/^http/, 'ws');
    const browser = await chromium.connect(`${ws}/playwright/chromium?enableVideo=true&name=recorded-pw`);
    const page = await browser.newPage();
    await page.goto(site.url);
    for (let step = 0; step < 20; step++) {
      await page.evaluate((n) => {
        document.body.textContent = `step ${n}`;
      }, step);
    }
    await browser.close();

    let key = '';
    await eventually(async () => {
      const list = (await (await fetch(`${grid.url}/ui/api/recordings?q=recorded-pw`)).json()) as {
        recordings: { key: string }[];
      };
      expect(list.recordings).toHaveLength(1);
      key = (list.recordings[0] as { key: string }).key;
    }, 60_000);
    let bytes = Buffer.alloc(0);
    await eventually(async () => {
      const answer = await fetch(`${grid.url}/ui/api/recordings/${key}/video`);
      expect(answer.status).toBe(200);
      bytes = Buffer.from(await answer.arrayBuffer());
    }, 60_000);
    const path = join(scratch, 'recorded.mp4');
    writeFileSync(path, bytes);
    const video = await probeVideo(path);
    expect(video.codec).toBe('h264');
    expect(video.frames).toBeGreaterThan(0);
  });
});
