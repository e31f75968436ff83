/**
 * The recordings a killed gridgate left: kept at the next start as sessions ended `server killed`, their
 * videos finished (a fragment cut in half dropped, the true duration written), within retention; live
 * owners' directories and sessions that never opened left alone. Real ffmpeg and ffprobe.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as harValidator from 'har-validator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, type RecordingConfig } from '../../../functions/core/config';
import { keepInterruptedRecordings } from '../../../functions/pools/local/interrupted-recordings';
import { LocalRecordings } from '../../../functions/pools/local/local-recordings';
import { RUNNING_RECORD, type RunningRecord } from '../../../functions/pools/local/session-recordings';
import { until } from '../../support/until';
import { probeVideo } from '../../support/video-probe';

const FFMPEG = '/usr/bin/ffmpeg';
const FRAGMENTED_MP4 = ['-movflags', '+frag_keyframe+empty_moov+default_base_moof', '-f', 'mp4'];

let scratch: string;
let temporary: string;
let settings: RecordingConfig;
let store: LocalRecordings;
let deadPid: number;
const started: ChildProcess[] = [];

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'gridgate-interrupted-'));
  temporary = join(scratch, 'tmp');
  mkdirSync(temporary);
  settings = parseConfig(
    { recording: { directory: join(scratch, 'kept'), retention: '2h' } },
    { builtInBrowserVersion: '1' },
  ).recording;
  store = new LocalRecordings(() => settings);
  // A pid that no process has any more: a child that already exited.
  deadPid = Number(execFileSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).trim());
});
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

const keep = (flushMs = 5000) =>
  keepInterruptedRecordings({
    store,
    ffmpeg: async () => FFMPEG,
    flushMs,
    logger: { log: () => undefined },
    directory: temporary,
  });

/** A session directory as a gridgate of `owner` leaves it, with the running record it wrote. */
function recordingDirectory(owner: number, record: Partial<RunningRecord> = {}): string {
  const directory = mkdtempSync(join(temporary, `gridgate-session-${owner}-`));
  const running: RunningRecord = {
    key: '00000000000000a1',
    user: 'alice',
    pool: 'local',
    browserName: 'chrome',
    browserVersion: '1',
    wish: { video: true, log: true, name: 'checkout works', videoName: 'checkout.mp4' },
    openedAt: Date.now() - 60_000,
    format: 'mp4',
    ...record,
  };
  writeFileSync(join(directory, RUNNING_RECORD), JSON.stringify(running));
  return directory;
}

/** A fragmented MP4 of `seconds` at 10 fps, cut off at `fraction` of its bytes as a killed ffmpeg leaves it. */
function cutVideo(path: string, seconds: number, fraction: number): void {
  execFileSync(FFMPEG, [
    ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=size=320x180:rate=10`],
    ...['-t', String(seconds), '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '20', ...FRAGMENTED_MP4],
    ...['-y', path],
  ]);
  const bytes = readFileSync(path);
  writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length * fraction)));
}

const PAGE = 'http://127.0.0.1:9/cart';
/** The DevTools events of one page load, as page-capture.ts writes them, the last line cut short by the kill. */
const NETWORK_EVENTS = [
  { method: 'Page.frameStartedLoading', params: { frameId: 'F1' } },
  {
    method: 'Network.requestWillBeSent',
    params: {
      requestId: 'R1',
      loaderId: 'R1',
      frameId: 'F1',
      documentURL: PAGE,
      request: { url: PAGE, method: 'GET', headers: { Accept: 'text/html' }, initialPriority: 'VeryHigh' },
      timestamp: 100,
      wallTime: 1_800_000_000,
      initiator: { type: 'other' },
      type: 'Document',
    },
  },
  {
    method: 'Network.responseReceived',
    params: {
      requestId: 'R1',
      loaderId: 'R1',
      frameId: 'F1',
      timestamp: 100.02,
      type: 'Document',
      response: {
        url: PAGE,
        status: 200,
        statusText: 'OK',
        headers: { 'Content-Type': 'text/html' },
        mimeType: 'text/html',
        connectionReused: false,
        connectionId: 7,
        encodedDataLength: 120,
        protocol: 'http/1.1',
        timing: {
          requestTime: 100,
          proxyStart: -1,
          proxyEnd: -1,
          dnsStart: -1,
          dnsEnd: -1,
          connectStart: 0.1,
          connectEnd: 0.4,
          sslStart: -1,
          sslEnd: -1,
          sendStart: 0.5,
          sendEnd: 0.6,
          receiveHeadersEnd: 12,
        },
      },
    },
  },
  {
    method: 'Network.loadingFinished',
    params: { requestId: 'R1', timestamp: 100.03, encodedDataLength: 300 },
  },
]
  .map((event) => JSON.stringify(event))
  .join('\n')
  .concat('\n{"method":"Network.requestWillBeSent","par');

describe('recordings of a killed gridgate', () => {
  it('keeps the console it captured, and makes the HAR of the network events it wrote', async () => {
    const directory = recordingDirectory(deadPid, {
      wish: { video: false, log: false, console: true, network: true },
    });
    const line = '2026-12-06T08:00:00.123Z error console.error http://127.0.0.1:9/cart:3:9 total was 41\n';
    writeFileSync(join(directory, 'console.log'), line);
    writeFileSync(join(directory, 'network.har.events'), NETWORK_EVENTS);

    const [kept] = await keep();
    expect(kept).toMatchObject({ endReason: 'server killed', console: {}, har: {} });
    const session = {
      key: '00000000000000a1',
      user: 'alice',
      pool: 'local',
      address: '',
      upstreamId: '',
      handle: '',
    };
    const consoleLog = (await store.find(session, 'console')) as { path: string };
    expect(readFileSync(consoleLog.path, 'utf8')).toBe(line);
    const har = (await store.find(session, 'har')) as { path: string; contentType: string };
    expect(har.contentType).toBe('application/json');
    const archive = JSON.parse(readFileSync(har.path, 'utf8')) as {
      log: { entries: { request: { url: string }; response: { status: number } }[] };
    };
    await expect(harValidator.har(archive)).resolves.toBeDefined();
    expect(archive.log.entries.map((entry) => [entry.request.url, entry.response.status])).toEqual([
      [PAGE, 200],
    ]);
  });

  it('keeps its session ended "server killed" at the time its files were last written, the video finished', async () => {
    const directory = recordingDirectory(deadPid);
    cutVideo(join(directory, 'video.mp4'), 9, 0.66);
    writeFileSync(join(directory, 'driver.log'), '[INFO]: COMMAND Navigate\n');
    // Whole seconds: file times keep them exactly.
    const lastWritten = new Date(Math.floor(Date.now() / 1000 - 30) * 1000);
    utimesSync(join(directory, 'video.mp4'), lastWritten, lastWritten);
    utimesSync(join(directory, 'driver.log'), lastWritten, lastWritten);

    const [kept, ...others] = await keep();
    expect(others).toEqual([]);
    expect(kept).toMatchObject({
      key: '00000000000000a1',
      user: 'alice',
      name: 'checkout works',
      endReason: 'server killed',
      endedAt: lastWritten.getTime(),
      video: { format: 'mp4', fileName: 'checkout.mp4' },
      log: { fileName: '00000000000000a1.log' },
    });
    const video = await store.find(
      { key: '00000000000000a1', user: 'alice', pool: 'local', address: '', upstreamId: '', handle: '' },
      'video',
    );
    const probed = await probeVideo((video as { path: string }).path);
    expect(probed.codec).toBe('h264');
    expect(probed.frames).toBeGreaterThan(0);
    // The cut file claims the duration of its last fragment's start; the finished one its frames' (10 fps).
    expect(Math.abs(probed.durationSeconds * 10 - probed.frames)).toBeLessThanOrEqual(2);
    expect(
      readFileSync(join(settings.directory as string, kept?.key as string, 'driver.log'), 'utf8'),
    ).toContain('COMMAND Navigate');
  });

  it('gives an ffmpeg still writing the flush time, then kills it and keeps what it wrote', async () => {
    const directory = recordingDirectory(deadPid, { wish: { video: true, log: false } });
    const output = join(directory, 'video.mp4');
    const writer = spawn(FFMPEG, [
      ...['-hide_banner', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=10'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '10', ...FRAGMENTED_MP4, '-y', output],
    ]);
    started.push(writer);
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    // Some fragments written (one a second) before the "server" dies.
    await until(() => (statSync(output, { throwIfNoEntry: false })?.size ?? 0) >= 2000, 'ffmpeg wrote 2 kB', {
      intervalMs: 100,
    });

    const [kept] = await keep(500);
    await exited;
    expect(writer.signalCode).toBe('SIGKILL');
    expect(kept).toMatchObject({ endReason: 'server killed', video: { format: 'mp4' } });
    expect(kept?.log).toBeUndefined();
    const probed = await probeVideo(join(settings.directory as string, kept?.key as string, 'video.mp4'));
    expect(probed.frames).toBeGreaterThan(0);
  });

  it('leaves the directories of a gridgate that still runs, and keeps nothing of a session that never opened', async () => {
    const live = recordingDirectory(process.pid);
    const unopened = recordingDirectory(deadPid, { openedAt: undefined });
    expect(await keep()).toEqual([]);
    expect(statSync(join(live, RUNNING_RECORD)).isFile()).toBe(true);
    expect(await store.list()).toEqual([]);
    // The sweep removes the unopened one as any other orphaned directory; this leaves it for that.
    expect(statSync(unopened).isDirectory()).toBe(true);
  });

  it('keeps within the retention: a session whose files were last written longer ago is not kept', async () => {
    const directory = recordingDirectory(deadPid, { openedAt: Date.now() - 4 * 3600_000 });
    cutVideo(join(directory, 'video.mp4'), 3, 1);
    writeFileSync(join(directory, 'driver.log'), 'log\n');
    const longAgo = new Date(Date.now() - 3 * 3600_000);
    utimesSync(join(directory, 'video.mp4'), longAgo, longAgo);
    utimesSync(join(directory, 'driver.log'), longAgo, longAgo);
    await keep();
    expect(await store.list()).toEqual([]);
  });

  it('keeps a session where and as the gridgate that ran it keeps recordings, when another one starts first', async () => {
    // The killed gridgate's folder, and a retention under which 3-hour-old files stay (this one's is 2 h).
    const theirs = { ...settings, directory: join(scratch, 'theirs'), retention: 7 * 24 * 3600_000 };
    const directory = recordingDirectory(deadPid, {
      openedAt: Date.now() - 4 * 3600_000,
      wish: { video: false, log: true },
      keeping: theirs,
    });
    writeFileSync(join(directory, 'driver.log'), '[INFO]: COMMAND Navigate\n');
    const longAgo = new Date(Date.now() - 3 * 3600_000);
    utimesSync(join(directory, 'driver.log'), longAgo, longAgo);

    const [kept] = await keep();
    expect(kept).toMatchObject({ key: '00000000000000a1', endReason: 'server killed' });
    expect(await store.list()).toEqual([]);
    expect(await new LocalRecordings(() => theirs).list()).toEqual([kept]);
    expect(readFileSync(join(theirs.directory, '00000000000000a1', 'driver.log'), 'utf8')).toContain(
      'Navigate',
    );
  });

  it('keeps a session once when two gridgate processes start at the same time', async () => {
    const directory = recordingDirectory(deadPid, { wish: { video: false, log: true } });
    writeFileSync(join(directory, 'driver.log'), 'log\n');
    const [first, second] = await Promise.all([keep(), keep()]);
    expect([...(first ?? []), ...(second ?? [])]).toHaveLength(1);
    expect(await store.list()).toHaveLength(1);
  });
});
