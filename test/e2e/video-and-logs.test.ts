/**
 * End to end on a local pool, real Chromium: sessions asking for their video and driver log in each
 * capability style (Selenium Grid 4's se:recordVideo through selenium-webdriver, Selenoid's selenoid:options
 * through Python selenium, gridgate:options), fetched on Selenoid's paths once the session ended however it
 * ended (DELETE, idle timeout, a killed browser); ffprobe reads each video's duration and frames.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, By, until, type WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRecordings } from '../../functions/pools/local/local-recordings';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { chromiumWithProfile } from '../support/launched-processes';
import { runPythonRecordedSession } from '../support/python-selenium';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { eventually } from '../support/until';
import { probeVideo } from '../support/video-probe';
import { sessionClaims } from './session-ended';

const TEST_MS = 150_000;
const WAIT_MS = 30_000;
const POLL_MS = 200;

let grid: TestGrid;
let site: TestPageServer;
const scratch = mkdtempSync(join(tmpdir(), 'gridgate-video-e2e-'));

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

function session(capabilities: Record<string, unknown>): Promise<WebDriver> {
  const options = new ChromeOptions();
  for (const [name, value] of Object.entries(capabilities)) options.set(name, value);
  return new Builder().usingServer(grid.url).forBrowser('chrome').setChromeOptions(options).build();
}

/** Changes the page a number of times, so the screencast has something to send. */
async function drive(driver: WebDriver, steps = 20): Promise<void> {
  await driver.get(site.url);
  for (let step = 0; step < steps; step++) {
    await driver.executeScript('document.body.textContent = "step " + arguments[0]', step);
  }
}

async function fetched(path: string): Promise<Response> {
  return fetch(`${grid.url}${path}`);
}

/** The session's video, once served, written where ffprobe reads it. */
async function videoOf(sessionId: string): Promise<string> {
  let bytes: Buffer | undefined;
  await eventually(
    async () => {
      const answer = await fetched(`/video/${sessionId}.mp4`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('video/mp4');
      bytes = Buffer.from(await answer.arrayBuffer());
    },
    WAIT_MS,
    POLL_MS,
  );
  const path = join(scratch, `${sessionId.slice(0, 16)}.mp4`);
  writeFileSync(path, bytes as Buffer);
  return path;
}

async function expectPlayableVideo(sessionId: string) {
  const video = await probeVideo(await videoOf(sessionId));
  expect(video).toMatchObject({ codec: 'h264', width: 1280, height: 720 });
  expect(video.durationSeconds).toBeGreaterThan(0);
  expect(video.frames).toBeGreaterThan(0);
  return video;
}

/** A person's Chromium finds the session by its test's name on the status page and plays its video there. */
async function expectPlayedOnStatusPage(sessionId: string, search: string) {
  const { key } = sessionClaims(grid, sessionId);
  const viewer = await session({});
  try {
    await viewer.get(`${grid.url}/ui`);
    await viewer.findElement(By.id('recordings-search')).sendKeys(search);
    const row = await viewer.wait(until.elementLocated(By.css(`#recordings tr[data-key="${key}"]`)), WAIT_MS);
    expect(await row.getText()).toContain('checkout works');
    const played = await viewer.executeAsyncScript<string | number>(PLAY_VIDEO, key);
    expect(played).toBeGreaterThan(0);
  } finally {
    await viewer.quit();
  }
}

// Plays the row's video muted until it has shown some of itself; answers how far it got, or the error.
const PLAY_VIDEO = `
const done = arguments[arguments.length - 1];
const video = document.querySelector('#recordings tr[data-key="' + arguments[0] + '"] video');
video.muted = true;
video.onerror = () => done('error ' + (video.error && video.error.code));
video.ontimeupdate = () => { if (video.currentTime > 0) done(video.currentTime); };
video.play().catch((error) => done('play refused: ' + error.message));
`;

describe('videos and logs of local sessions', { timeout: TEST_MS }, () => {
  it('records a session that asks with se:recordVideo (selenium-webdriver), and its log with selenoid:options', async () => {
    const driver = await session({
      'se:recordVideo': true,
      'se:name': 'checkout works',
      'selenoid:options': { enableLog: true },
    });
    const sessionId = await driver.getSession().then((s) => s.getId());
    await drive(driver);
    // While it runs: the log so far, and no video yet.
    const live = await fetched(`/logs/${sessionId}.log`);
    expect(live.status).toBe(200);
    expect(await live.text()).toContain('ExecuteScript');
    expect((await fetched(`/video/${sessionId}.mp4`)).status).toBe(404);
    await driver.quit();
    const video = await expectPlayableVideo(sessionId);
    // 10 frames a second by default: the frames match the duration.
    expect(Math.abs(video.frames - video.durationSeconds * 10)).toBeLessThanOrEqual(2);
    const log = await fetched(`/logs/${sessionId}.log`);
    expect(log.status).toBe(200);
    // Kept whole: each of drive()'s 20 scripts and its answer. The DELETE stopped the browser without asking
    // chromedriver to quit it, which for a profile it was given is a graceful close that writes the profile back.
    const kept = await log.text();
    expect(kept.match(/COMMAND ExecuteScript/g)).toHaveLength(20);
    expect(kept.match(/RESPONSE ExecuteScript/g)).toHaveLength(20);
    expect(kept).not.toContain('COMMAND Quit');
    await expectPlayedOnStatusPage(sessionId, 'checkout');
  });

  it('has a video of a session that ended right after it opened, its page never drawn again', async () => {
    // A screencast sends frames only when the page draws: the video holds the screen as the session opened.
    const driver = await session({ 'se:recordVideo': true });
    const sessionId = await driver.getSession().then((s) => s.getId());
    await driver.quit();
    const video = await expectPlayableVideo(sessionId);
    expect(video.frames).toBeGreaterThan(0);
  });

  it('records a Python selenium session asking with selenoid:options {enableVideo, enableLog, name, videoName}', async () => {
    const run = await runPythonRecordedSession(grid.url, site.url);
    expect(run.code, run.stderr).toBe(0);
    const sessionId = /session: (\S+)/.exec(run.stdout)?.[1] as string;
    const answer = await fetched(`/video/${sessionId}.mp4`);
    expect(answer.headers.get('content-disposition')).toBe('inline; filename="checkout.mp4"');
    await expectPlayableVideo(sessionId);
    expect(await (await fetched(`/logs/${sessionId}.log`)).text()).toContain('COMMAND Navigate');
  });

  it('keeps the video of a session that ended at its idle timeout (gridgate:options)', async () => {
    const driver = await session({ 'gridgate:options': { video: true, log: true, idleTimeout: '5s' } });
    const sessionId = await driver.getSession().then((s) => s.getId());
    await driver.get(site.url);
    await eventually(() => expect(grid.logger.events()).toContain('SESSION_TIMED_OUT'), WAIT_MS, POLL_MS);
    await expectPlayableVideo(sessionId);
    expect((await fetched(`/logs/${sessionId}.log`)).status).toBe(200);
  });

  it('keeps the video of a session whose browser was killed', async () => {
    const driver = await session({ 'se:recordVideo': true });
    const sessionId = await driver.getSession().then((s) => s.getId());
    await drive(driver, 5);
    const chromium = chromiumWithProfile(await driver.getCapabilities());
    expect(chromium).toBeDefined();
    process.kill(chromium?.pid as number, 'SIGKILL');
    await eventually(
      () => expect(grid.logger.fieldsOf('SESSION_ENDED').map((f) => f.reason)).toContain('browser exited'),
      WAIT_MS,
      POLL_MS,
    );
    await expectPlayableVideo(sessionId);
  });
});

describe('a recorded session when the server shuts down', { timeout: TEST_MS }, () => {
  it('finishes and keeps its video', async () => {
    const directory = join(scratch, 'shutdown');
    const stopping = await startTestGrid({ recording: { directory } });
    const options = new ChromeOptions();
    options.set('se:recordVideo', true);
    const driver = await new Builder()
      .usingServer(stopping.url)
      .forBrowser('chrome')
      .setChromeOptions(options)
      .build();
    await driver.get(site.url);
    await stopping.close();
    const [kept] = await new LocalRecordings(() => ({ ...stopping.deps.config.recording, directory })).list();
    expect(kept).toMatchObject({ endReason: 'server shutdown', video: { format: 'mp4' }, screenshot: true });
    const video = await probeVideo(join(directory, kept?.key as string, 'video.mp4'));
    expect(video.frames).toBeGreaterThan(0);
  });
});
