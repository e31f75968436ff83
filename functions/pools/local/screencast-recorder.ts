/**
 * Records a headless Chromium's screen into a video: DevTools' screencast (Page.startScreencast, JPEG frames
 * sent when the page changes) piped into ffmpeg at a steady frame rate, the last frame repeated while the page
 * stays still, so the video's time is the session's time. MP4 is fragmented (a fragment every two seconds),
 * so a video cut short (ffmpeg killed at the flush deadline, gridgate killed) still plays up to its last
 * fragment. When the page recorded closes, the next open page is followed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { browserEnvironment } from '../../adapters/process/browser-environment';
import { exitsWithin } from '../../adapters/process/process-group';
import { CdpConnection, type CdpEvent } from './cdp-connection';

export interface RecorderSettings {
  ffmpeg: string;
  /** DevTools host:port of the browser. */
  devtools: string;
  output: string;
  format: 'mp4' | 'webm';
  fps: number;
  width: number;
  height: number;
}

export interface FinishedVideo {
  /** Frames the screencast sent, and frames written to the video (repeats included). */
  received: number;
  written: number;
  /** The last frame the browser showed (JPEG), for a session's last screenshot. */
  lastFrame?: Buffer;
  /** False when ffmpeg did not finish within the flush time and was killed (the video ends earlier). */
  complete: boolean;
}

const FOLLOW_ATTEMPTS = 5;
// How long a new session waits for its screencast to start before it is answered anyway.
const FIRST_ATTACH_MS = 2000;
const FOLLOW_RETRY_MS = 200;
// Frames waiting in ffmpeg's pipe beyond this are dropped rather than held in memory (ffmpeg fell behind).
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

export class ScreencastRecorder {
  private lastFrame?: Buffer;
  private startedAt?: number;
  private received = 0;
  private written = 0;
  private page?: { targetId: string; sessionId: string };
  private readonly timer: NodeJS.Timeout;
  private readonly exited: Promise<void>;
  private finishing?: Promise<FinishedVideo>;
  private following?: Promise<void>;

  private constructor(
    private readonly settings: RecorderSettings,
    private readonly ffmpeg: ChildProcess,
    private cdp?: CdpConnection,
  ) {
    this.exited = new Promise((resolve) => {
      ffmpeg.once('exit', () => resolve());
      ffmpeg.once('error', () => resolve());
    });
    // An ffmpeg that ended early must not make writes throw: its video is what it wrote.
    ffmpeg.stdin?.on('error', () => undefined);
    this.timer = setInterval(() => this.writeDue(Date.now()), 1000 / settings.fps);
    this.timer.unref();
  }

  /** Starts ffmpeg and the screencast of the browser's first page; rejects (stopping ffmpeg) if either cannot. */
  static async start(settings: RecorderSettings): Promise<ScreencastRecorder> {
    // ffmpeg decodes frames a page drew: it gets a browser's environment, not gridgate's.
    const ffmpeg = spawn(settings.ffmpeg, ffmpegArgs(settings), {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: browserEnvironment(undefined),
    });
    ffmpeg.stderr?.resume();
    const recorder = new ScreencastRecorder(settings, ffmpeg);
    try {
      recorder.cdp = await CdpConnection.open(settings.devtools, (event) => recorder.onEvent(event));
      await recorder.cdp.send('Target.setDiscoverTargets', { discover: true });
      // A page may go while it is being attached to (chromedriver settling its first tab): the next
      // page's creation, or the retries, bring the screencast back. The first attachment is waited for
      // (within a bound), so a session that ends at once still has its first screen in its video.
      await Promise.race([recorder.followPage(), delay(FIRST_ATTACH_MS, undefined, { ref: false })]);
      return recorder;
    } catch (error) {
      await recorder.finish(1000);
      throw new Error(`cannot record the browser's screen: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * Stops the screencast, writes the frames due until now, and waits up to `flushMs` for ffmpeg to finish
   * the file (then kills it). Safe to call more than once, and after the browser is gone.
   */
  finish(flushMs: number): Promise<FinishedVideo> {
    this.finishing ??= (async () => {
      clearInterval(this.timer);
      this.writeDue(Date.now());
      await this.cdp?.close();
      this.ffmpeg.stdin?.end();
      const complete = await exitsWithin(this.exited, flushMs);
      if (!complete) this.ffmpeg.kill('SIGKILL');
      await this.exited;
      return { received: this.received, written: this.written, lastFrame: this.lastFrame, complete };
    })();
    return this.finishing;
  }

  /** Attaches to an open page and starts its screencast, trying a few times; one attempt at a time. */
  private followPage(): Promise<void> {
    this.following ??= (async () => {
      for (let attempt = 1; attempt <= FOLLOW_ATTEMPTS && !this.finishing; attempt++) {
        try {
          await this.attachToPage();
          return;
        } catch {
          this.page = undefined;
          await delay(FOLLOW_RETRY_MS);
        }
      }
    })().finally(() => {
      this.following = undefined;
    });
    return this.following;
  }

  private async attachToPage(): Promise<void> {
    if (!this.cdp || this.page) return;
    const { targetInfos } = (await this.cdp.send('Target.getTargets')) as {
      targetInfos: { targetId: string; type: string }[];
    };
    const page = targetInfos.find((target) => target.type === 'page');
    if (!page) return;
    const { sessionId } = (await this.cdp.send('Target.attachToTarget', {
      targetId: page.targetId,
      flatten: true,
    })) as { sessionId: string };
    this.page = { targetId: page.targetId, sessionId };
    const { width, height } = this.settings;
    await this.cdp.send(
      'Page.startScreencast',
      { format: 'jpeg', quality: 80, maxWidth: width, maxHeight: height },
      sessionId,
    );
    // The screencast sends a frame only when the page draws: a page that stays as it is (or a session that
    // ends before it draws again) would leave the video without a single frame, so no video at all.
    if (this.lastFrame) return;
    const { data } = await this.cdp.send(
      'Page.captureScreenshot',
      { format: 'jpeg', quality: 80 },
      sessionId,
    );
    // A frame the screencast sent meanwhile is newer than this screenshot.
    if (!this.lastFrame) this.showFrame(Buffer.from(String(data), 'base64'));
  }

  /** The browser's screen as it is now: written from now on until the next one comes. */
  private showFrame(frame: Buffer): void {
    this.lastFrame = frame;
    this.startedAt ??= Date.now();
  }

  private onEvent(event: CdpEvent): void {
    if (event.method === 'Page.screencastFrame') {
      this.received++;
      this.showFrame(Buffer.from(String(event.params.data), 'base64'));
      // Chromium sends the next frame only once this one is acknowledged.
      this.cdp
        ?.send('Page.screencastFrameAck', { sessionId: event.params.sessionId }, event.sessionId)
        .catch(() => undefined);
      return;
    }
    const gone =
      (event.method === 'Target.targetDestroyed' && event.params.targetId === this.page?.targetId) ||
      (event.method === 'Target.detachedFromTarget' && event.params.sessionId === this.page?.sessionId);
    if (gone) {
      this.page = undefined;
      void this.followPage().catch(() => undefined);
    } else if (event.method === 'Target.targetCreated' && !this.page) {
      void this.followPage().catch(() => undefined);
    }
  }

  /** Writes the last frame as often as the frame rate says it is due since the first frame came. */
  private writeDue(now: number): void {
    const { lastFrame, startedAt } = this;
    const stdin = this.ffmpeg.stdin;
    if (!lastFrame || startedAt === undefined || !stdin || stdin.destroyed) return;
    const due = Math.floor(((now - startedAt) * this.settings.fps) / 1000) + 1;
    while (this.written < due) {
      if (stdin.writableLength < MAX_QUEUED_BYTES) stdin.write(lastFrame);
      this.written++;
    }
  }
}

/** ffmpeg reading JPEGs from stdin: scaled into the configured size (letterboxed), one thread, fast presets. */
export function ffmpegArgs({ format, fps, width, height, output }: RecorderSettings): string[] {
  const fit = `scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2,format=yuv420p`;
  const keyframes = String(fps * 2);
  const codec =
    format === 'mp4'
      ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '30', '-g', keyframes]
      : ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1M', '-g', keyframes];
  // Each fragment is written out once finished (-flush_packets 1): held in ffmpeg's 32 KB output buffer, a
  // still page's minute of video would be lost with an ffmpeg that is killed.
  const container =
    format === 'mp4'
      ? ['-movflags', '+frag_keyframe+empty_moov+default_base_moof', '-flush_packets', '1', '-f', 'mp4']
      : ['-flush_packets', '1', '-f', 'webm'];
  return [
    ...['-hide_banner', '-loglevel', 'error'],
    ...['-f', 'image2pipe', '-c:v', 'mjpeg', '-framerate', String(fps), '-i', 'pipe:0'],
    ...['-vf', fit, '-threads', '1', ...codec, '-an', ...container, '-y', output],
  ];
}
