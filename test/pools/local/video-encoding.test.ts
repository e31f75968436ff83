/**
 * The ffmpeg command a recording runs (screencast-recorder.ts), fed JPEG frames as the screencast sends
 * them: both formats come out as videos ffprobe reads, at the configured size and with every frame written, and
 * an MP4 whose ffmpeg is killed keeps the fragments finished until then.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ffmpegArgs } from '../../../functions/pools/local/screencast-recorder';
import { until } from '../../support/until';
import { probeVideo } from '../../support/video-probe';

const scratch = mkdtempSync(join(tmpdir(), 'gridgate-encoding-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// A frame as Chromium sends one: a JPEG, here of another size than the video's (it is letterboxed).
const frame = execFileSync('/usr/bin/ffmpeg', [
  ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=800x600', '-frames:v', '1', '-f', 'mjpeg', 'pipe:1'],
]);

describe('the recording’s ffmpeg command', () => {
  it.each([
    ['mp4', 'h264'],
    ['webm', 'vp8'],
  ] as const)('makes a %s video (%s) of the frames it is given', async (format, codec) => {
    const output = join(scratch, `video.${format}`);
    const ffmpeg = spawn(
      '/usr/bin/ffmpeg',
      ffmpegArgs({ ffmpeg: '', devtools: '', output, format, fps: 10, width: 640, height: 360 }),
      {
        stdio: ['pipe', 'ignore', 'inherit'],
      },
    );
    for (let i = 0; i < 30; i++) ffmpeg.stdin.write(frame);
    ffmpeg.stdin.end();
    const [code] = await once(ffmpeg, 'exit');
    expect(code).toBe(0);
    const video = await probeVideo(output);
    expect(video).toMatchObject({ codec, width: 640, height: 360, frames: 30 });
    expect(video.durationSeconds).toBeCloseTo(3, 0);
  });

  it('writes each MP4 fragment out as it is finished, so a killed ffmpeg leaves a video that plays', async () => {
    const output = join(scratch, 'killed.mp4');
    const ffmpeg = spawn(
      '/usr/bin/ffmpeg',
      ffmpegArgs({ ffmpeg: '', devtools: '', output, format: 'mp4', fps: 10, width: 640, height: 360 }),
      { stdio: ['pipe', 'ignore', 'inherit'] },
    );
    const exited = once(ffmpeg, 'exit');
    ffmpeg.stdin.on('error', () => undefined); // frames still queued when it is killed
    // A page that stays still, as most do: the same frame, 8 s of it (a fragment every 2 s), input left open.
    for (let i = 0; i < 80; i++) ffmpeg.stdin.write(frame);
    // Three fragments are finished; without flushing they would sit in ffmpeg's output buffer (32 KB).
    await until(
      () => (statSync(output, { throwIfNoEntry: false })?.size ?? 0) > 2000,
      'fragments are on disk',
      {
        timeoutMs: 20_000,
      },
    );
    ffmpeg.kill('SIGKILL');
    await exited;
    const video = await probeVideo(output);
    expect(video.frames).toBeGreaterThanOrEqual(20);
  });
});
