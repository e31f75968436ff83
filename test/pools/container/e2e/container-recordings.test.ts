/**
 * End to end: a container session's video and log, recorded as a local session's are. The video is the
 * screencast through the container's DevTools door, written by ffmpeg on this machine and read back by ffprobe;
 * the log is the container's output, served while the session runs and kept after its container is gone;
 * `recording.keep: failed` keeps the log of a session that did not fail but not its video; the status page's
 * list names the session. The chromedriver image, on real podman.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
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
import type { TestGrid } from '../../../support/grid-fixture';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { eventually } from '../../../support/until';
import { probeVideo } from '../../../support/video-probe';

const TEST_MS = 150_000;
const WAIT_MS = 30_000;

let images: TestImages;
let site: TestPageServer;
const scratch = mkdtempSync(join(tmpdir(), 'gridgate-container-recordings-'));
const pools: string[] = [];
const grids: TestGrid[] = [];

beforeAll(async () => {
  [images, site] = await Promise.all([containerImages(), startTestPageServer()]);
}, 900_000);

afterAll(async () => {
  await Promise.all(grids.map((grid) => grid.close()));
  for (const pool of pools) removeContainersOfPool(pool);
  await site?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function grid(
  prefix: string,
  recording: Record<string, unknown>,
): Promise<{ grid: TestGrid; pool: string }> {
  const pool = uniquePoolName(prefix);
  pools.push(pool);
  const started = await startContainerGrid(
    pool,
    { image: images.chromedriver, hostLoopback: true },
    { recording: { directory: join(scratch, pool), ...recording } },
  );
  grids.push(started);
  return { grid: started, pool };
}

function session(url: string, capabilities: Record<string, unknown>): Promise<WebDriver> {
  const options = new ChromeOptions();
  for (const [name, value] of Object.entries(capabilities)) options.set(name, value);
  return new Builder().usingServer(url).forBrowser('chrome').setChromeOptions(options).build();
}

/** Changes the page a number of times, so the screencast has something to send. */
async function drive(driver: WebDriver): Promise<void> {
  await driver.get(`${site.url.replace('127.0.0.1', HOST_LOOPBACK_FROM_PAGES)}/`);
  for (let step = 0; step < 20; step++)
    await driver.executeScript('document.body.textContent = "step " + arguments[0]', step);
}

describe('recordings of container sessions', { timeout: TEST_MS }, () => {
  it('records the video through the DevTools door and keeps the log after the container is gone', async () => {
    const { grid: g, pool } = await grid('rec-video', {});
    const driver = await session(g.url, {
      'se:recordVideo': true,
      'se:name': 'container checkout',
      'selenoid:options': { enableLog: true },
    });
    const sessionId = (await driver.getSession()).getId();
    await drive(driver);
    // While it runs: the container's output so far, and no video yet.
    const live = await fetch(`${g.url}/logs/${sessionId}.log`);
    expect(live.status).toBe(200);
    expect(await live.text()).toContain('ChromeDriver was started successfully');
    expect((await fetch(`${g.url}/video/${sessionId}.mp4`)).status).toBe(404);
    await driver.quit();
    expect(containersOfPool(pool)).toEqual([]);

    let bytes: Buffer | undefined;
    await eventually(async () => {
      const answer = await fetch(`${g.url}/video/${sessionId}.mp4`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('video/mp4');
      bytes = Buffer.from(await answer.arrayBuffer());
    }, WAIT_MS);
    const path = join(scratch, `${pool}.mp4`);
    writeFileSync(path, bytes as Buffer);
    const video = await probeVideo(path);
    expect(video).toMatchObject({ codec: 'h264', width: 1280, height: 720 });
    expect(video.durationSeconds).toBeGreaterThan(0);
    expect(video.frames).toBeGreaterThan(0);

    const log = await fetch(`${g.url}/logs/${sessionId}.log`);
    expect(log.status).toBe(200);
    expect(await log.text()).toMatch(/ChromeDriver was started successfully[\s\S]*COMMAND ExecuteScript/);

    const listed = (await (await fetch(`${g.url}/ui/api/recordings`)).json()) as {
      recordings: { name?: string; video?: unknown; log?: unknown }[];
    };
    expect(listed.recordings).toContainEqual(
      expect.objectContaining({
        name: 'container checkout',
        video: expect.anything(),
        log: expect.anything(),
      }),
    );
  });

  it('keeps only the log of a session that did not fail under recording.keep: failed', async () => {
    const { grid: g, pool } = await grid('rec-failed', { video: true, log: true, keep: 'failed' });
    const driver = await session(g.url, {});
    const sessionId = (await driver.getSession()).getId();
    await drive(driver);
    await driver.quit();
    expect(containersOfPool(pool)).toEqual([]);
    await eventually(
      async () => expect((await fetch(`${g.url}/logs/${sessionId}.log`)).status).toBe(200),
      WAIT_MS,
    );
    expect((await fetch(`${g.url}/video/${sessionId}.mp4`)).status).toBe(404);
  });
});
