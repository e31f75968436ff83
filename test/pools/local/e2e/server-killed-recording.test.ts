/**
 * `npm start` SIGKILLed while two sessions record on real Chromium (one's ffmpeg killed with it, as when a
 * whole container goes; the other's left to end by itself), another gridgate of the same machine started
 * meanwhile, then the killed one started again with the same config and secret: both sessions' videos and
 * logs are served, ended `server killed`, and ffprobe reads each video.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { afterAll, describe, expect, it } from 'vitest';
import { launchedProcesses, orphansGone } from '../../../support/launched-processes';
import { type NodeServerProcess, startNodeServer } from '../../../support/node-server-process';
import { eventually } from '../../../support/until';
import { probeVideo } from '../../../support/video-probe';

const TEST_MS = 240_000;
const WAIT_MS = 60_000;
const POLL_MS = 200;

const scratch = mkdtempSync(join(tmpdir(), 'gridgate-killed-e2e-'));
const servers: NodeServerProcess[] = [];
afterAll(async () => {
  for (const server of servers) {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    server.dispose();
  }
  rmSync(scratch, { recursive: true, force: true });
});

const config = { port: 0, host: '127.0.0.1', recording: { directory: join(scratch, 'kept') } };
const env = { GRIDGATE_SECRET: randomBytes(32).toString('hex') };

function started(): NodeServerProcess {
  const server = startNodeServer(config, env);
  servers.push(server);
  return server;
}

async function recordedSession(url: string, name: string): Promise<{ driver: WebDriver; id: string }> {
  const options = new ChromeOptions();
  options.set('selenoid:options', { enableVideo: true, enableLog: true, name });
  const driver = await new Builder().usingServer(url).forBrowser('chrome').setChromeOptions(options).build();
  await driver.get('data:text/html,<body>recorded</body>');
  for (let step = 0; step < 10; step++)
    await driver.executeScript('document.body.textContent = "step " + arguments[0]', step);
  return { driver, id: (await driver.getSession()).getId() };
}

/** The ffmpeg processes a server started, by the video file each writes. */
function ffmpegsOf(serverPid: number): Map<string, number> {
  const found = new Map<string, number>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'ffmpeg') continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== serverPid) continue;
      const output = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').at(-2) as string;
      found.set(output, Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function fetchedVideo(url: string, id: string): Promise<string> {
  const answer = await fetch(`${url}/video/${id}.mp4`);
  expect(answer.status).toBe(200);
  const path = join(scratch, `${id.slice(0, 12)}.mp4`);
  writeFileSync(path, Buffer.from(await answer.arrayBuffer()));
  return path;
}

describe('recordings of sessions running when gridgate is killed', { timeout: TEST_MS }, () => {
  it('are kept at the next start, ended "server killed", and their videos play', async () => {
    const first = started();
    const url = await first.url;
    const pid = first.child.pid as number;
    const alone = await recordedSession(url, 'ffmpeg ends alone');
    const [aloneVideo] = [...ffmpegsOf(pid).keys()];
    const killed = await recordedSession(url, 'ffmpeg killed too');
    const [killedVideo, killedFfmpeg] = [...ffmpegsOf(pid)].find(([output]) => output !== aloneVideo) ?? [];
    expect(aloneVideo && killedVideo && killedFfmpeg).toBeTruthy();
    // Some fragments (one every two seconds, a few KB each for a still page) are on disk before the kill.
    await eventually(
      () => {
        for (const video of [aloneVideo, killedVideo])
          expect(statSync(video as string).size).toBeGreaterThan(8_000);
      },
      WAIT_MS,
      POLL_MS,
    );

    // It runs both sessions' chromedrivers (and a kept-ready one), which the next start must sweep.
    expect(launchedProcesses('chromedriver', pid).length).toBeGreaterThanOrEqual(2);
    first.child.kill('SIGKILL');
    process.kill(killedFfmpeg as number, 'SIGKILL');
    await first.exited;

    // Another gridgate of this machine (a grid of the user's: its own port, secret and recordings folder)
    // starts before this one does. Its start-up ends what the killed server left and keeps its recordings,
    // where the killed server kept its own. Any gridgate starting meanwhile (another test run) may be the
    // one that does: what was left is checked, not whose log says so.
    const other = startNodeServer(
      { port: 0, host: '127.0.0.1', recording: { directory: join(scratch, 'other') } },
      { GRIDGATE_SECRET: randomBytes(32).toString('hex') },
    );
    servers.push(other);
    await other.url;
    await orphansGone(pid);

    const second = started();
    const again = await second.url;
    // A gridgate of another run may still be finishing the videos it took.
    await eventually(
      async () => {
        const listed = (await (await fetch(`${again}/ui/api/recordings`)).json()) as {
          recordings: { name?: string; endReason?: string }[];
        };
        expect(listed.recordings).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ name: 'ffmpeg ends alone', endReason: 'server killed' }),
            expect.objectContaining({ name: 'ffmpeg killed too', endReason: 'server killed' }),
          ]),
        );
      },
      WAIT_MS,
      POLL_MS,
    );
    const others = (await (await fetch(`${await other.url}/ui/api/recordings`)).json()) as {
      recordings: unknown[];
    };
    expect(others.recordings).toEqual([]);

    for (const { id } of [alone, killed]) {
      const video = await probeVideo(await fetchedVideo(again, id));
      expect(video).toMatchObject({ codec: 'h264', width: 1280, height: 720 });
      expect(video.durationSeconds).toBeGreaterThan(0);
      expect(video.frames).toBeGreaterThan(0);
      const log = await fetch(`${again}/logs/${id}.log`);
      expect(log.status).toBe(200);
      expect(await log.text()).toContain('COMMAND ExecuteScript');
    }
    // The session itself is gone with its browser: its commands get a W3C error, not a hang.
    const command = await fetch(`${again}/session/${alone.id}/url`);
    expect(command.status).toBeGreaterThanOrEqual(400);
    expect(((await command.json()) as { value: { error: string } }).value.error).toBeTypeOf('string');
  });
});
