/**
 * The recordings of local sessions while they run: each session that asked gets a directory of its own
 * (named like the session directories, so the start-up sweep removes one a dead gridgate left) holding the
 * chromedriver log (`--log-path`), the video ffmpeg writes from the screencast, and the console log and HAR
 * captured over DevTools (page-capture.ts). However the session ends
 * (DELETE, idle timeout, a crashed browser, shutdown), the video is finished within the flush time and both
 * move into the kept recordings (LocalRecordings) with the session's record; a session that never opened
 * (its creation failed) keeps nothing. The directory also holds the session's record as far as it is known
 * (`recording.json`), so what a gridgate killed outright was recording is kept at its next start
 * (interrupted-recordings.ts).
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESSION_DIRECTORY_PREFIX } from '../../adapters/fs/session-folder-names';
import type { Capabilities } from '../../core/capabilities';
import type { RecordingConfig } from '../../core/config';
import { devtoolsAddress } from '../../core/devtools-address';
import type { LaunchRequest, Logger, SessionEndReason } from '../../core/ports';
import type { RecordingWish } from '../../core/recording-wish';
import type { EndedRecording, LocalRecordings } from './local-recordings';
import { PageCapture } from './page-capture';
import { ScreencastRecorder } from './screencast-recorder';

/** chromedriver's log in a recording directory. */
export const DRIVER_LOG = 'driver.log';
/** The captured console in a recording directory. */
export const CONSOLE_LOG = 'console.log';
/** The captured network traffic in a recording directory, written when the session ends. */
export const NETWORK_HAR = 'network.har';
/** A running session's record in its recording directory, read back only if gridgate dies before it ends. */
export const RUNNING_RECORD = 'recording.json';

/** What a running recording's directory says of its session (RUNNING_RECORD). */
export type RunningRecord = Pick<
  PendingRecording,
  'key' | 'user' | 'pool' | 'browserName' | 'browserVersion' | 'wish' | 'openedAt' | 'format'
> & {
  /**
   * How the gridgate running the session keeps recordings, its folder resolved: after a kill, whichever
   * gridgate of the machine starts first keeps the session there and so (another may keep its own elsewhere).
   * Absent from records written before it was added.
   */
  keeping?: RecordingConfig;
};

/** A session's recording, from before its chromedriver starts until it is kept. */
export interface PendingRecording {
  key: string;
  user: string;
  pool: string;
  browserName: string;
  browserVersion: string;
  wish: RecordingWish;
  directory: string;
  /** chromedriver's arguments for the log, if asked. */
  driverArgs: string[];
  openedAt?: number;
  recorder?: ScreencastRecorder;
  capture?: PageCapture;
  format?: 'mp4' | 'webm';
}

export interface SessionRecordingsOptions {
  store: LocalRecordings;
  settings: () => RecordingConfig;
  /** The ffmpeg binary, installed on first use. */
  ffmpeg: () => Promise<string>;
  logger: Logger;
}

export class SessionRecordings {
  private readonly running = new Map<string, PendingRecording>();

  constructor(private readonly options: SessionRecordingsOptions) {}

  /** For a session that asked for a video or a log: its directory, and chromedriver's log arguments. */
  async begin(request: LaunchRequest): Promise<PendingRecording | undefined> {
    const wish = request.recording;
    if (!wish || (!wish.video && !wish.log && !capturing(wish))) return undefined;
    const directory = await mkdtemp(join(tmpdir(), `${SESSION_DIRECTORY_PREFIX}${process.pid}-`));
    const browserName = request.capabilities.browserName;
    const pending: PendingRecording = {
      key: request.key,
      user: request.user,
      pool: request.pool.name,
      browserName: typeof browserName === 'string' ? browserName : 'chrome',
      browserVersion: request.browserVersion ?? '',
      wish,
      directory,
      driverArgs: wish.log ? [`--log-path=${join(directory, DRIVER_LOG)}`, '--log-level=INFO'] : [],
    };
    await writeRunningRecord(pending, this.keeping());
    return pending;
  }

  /** A recording whose browser never started: its directory goes. */
  async discard(pending: PendingRecording | undefined): Promise<void> {
    if (pending) await rm(pending.directory, { recursive: true, force: true });
  }

  /** The browser of this handle records into `pending` (or, with none, nothing). */
  track(handle: string, pending: PendingRecording | undefined): void {
    if (pending) this.running.set(handle, pending);
  }

  /**
   * The session is open: its video and its console and network capture start now, from the browser's DevTools
   * address in its capabilities.
   */
  async opened(handle: string, capabilities: Capabilities): Promise<void> {
    const pending = this.running.get(handle);
    if (!pending) return;
    pending.openedAt = Date.now();
    const { wish, directory } = pending;
    const settings = this.options.settings();
    if (wish.video) pending.format = settings.format;
    // Written before the video starts: a video on disk always has a record beside it saying whose it is.
    await writeRunningRecord(pending, this.keeping());
    if (!wish.video && !capturing(wish)) return;
    const devtools = devtoolsAddress(capabilities);
    if (!devtools)
      throw new Error(
        'the browser did not say where its DevTools listen, so it cannot be recorded or captured',
      );
    if (capturing(wish)) {
      pending.capture = await PageCapture.start({
        devtools,
        ...(wish.console ? { console: join(directory, CONSOLE_LOG) } : {}),
        ...(wish.network ? { har: join(directory, NETWORK_HAR) } : {}),
      });
    }
    if (!wish.video) return;
    const [width, height] = settings.size.split('x').map(Number) as [number, number];
    pending.recorder = await ScreencastRecorder.start({
      ffmpeg: await this.options.ffmpeg(),
      devtools,
      output: join(directory, `video.${settings.format}`),
      format: settings.format,
      fps: settings.fps,
      width,
      height,
    });
  }

  /**
   * Finishes the video (its last frames, within the flush time) and the console and network capture while
   * the browser still runs.
   */
  async stopRecording(handle: string): Promise<void> {
    const pending = this.running.get(handle);
    await Promise.all([
      pending?.recorder?.finish(this.options.settings().flushTimeout),
      pending?.capture?.finish(),
    ]);
  }

  /**
   * After the browser stopped (chromedriver's log is complete): keeps what the session recorded (its video
   * only when `videoNotKept` gives no reason against it), then clears up.
   */
  async keep(handle: string, reason: SessionEndReason | undefined, videoNotKept?: string): Promise<void> {
    const pending = this.running.get(handle);
    if (!pending) return;
    this.running.delete(handle);
    try {
      if (pending.openedAt !== undefined) await this.store(pending, reason, videoNotKept);
    } catch (error) {
      this.options.logger.log('BACKGROUND_TASK_FAILED', {
        task: 'keep recording',
        session: pending.key,
        error: String(error),
      });
    } finally {
      await rm(pending.directory, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
    }
  }

  /**
   * Where the session's driver log is to be written when it keeps one (its browser's driver writes it there
   * itself, or a launcher copies it there before the browser goes: a container's output); else undefined.
   */
  logFile(handle: string): string | undefined {
    const pending = this.running.get(handle);
    return pending?.wish.log ? join(pending.directory, DRIVER_LOG) : undefined;
  }

  /** A running session's log so far, by its key. */
  liveLog(key: string): { path: string; fileName: string } | undefined {
    for (const pending of this.running.values()) {
      if (pending.key === key && pending.wish.log && pending.openedAt !== undefined)
        return { path: join(pending.directory, DRIVER_LOG), fileName: pending.wish.logName ?? `${key}.log` };
    }
    return undefined;
  }

  /** How recordings are kept now, where they go spelled out, for the running record. */
  private keeping(): RecordingConfig {
    return { ...this.options.settings(), directory: this.options.store.root() };
  }

  /** A video not to be kept is left in the session's directory, which goes right after. */
  private async store(
    pending: PendingRecording,
    reason: SessionEndReason | undefined,
    videoNotKept: string | undefined,
  ): Promise<void> {
    const [video, captured] = await Promise.all([
      pending.recorder?.finish(this.options.settings().flushTimeout),
      pending.capture?.finish(),
    ]);
    // No frame at all (the first attachment to the page had not come when the session ended): ffmpeg made no
    // file, and the session says so rather than lose its video without a word.
    const notKept = videoNotKept ?? (video?.written === 0 ? NOTHING_RECORDED : undefined);
    const ended = endedRecording(pending, pending.directory, {
      endedAt: Date.now(),
      reason,
      video: pending.recorder !== undefined && notKept === undefined,
      screenshot: video?.lastFrame,
      console: captured?.console === true,
      har: captured?.har === true,
    });
    if (pending.recorder && notKept) ended.session.videoNotKept = notKept;
    await this.options.store.keep(ended);
  }
}

/** Why a session has no video when its recorder never saw its screen, as the status page shows it. */
export const NOTHING_RECORDED = 'not recorded: the session ended before its screen could be recorded';

/** Whether the session captures its console or its network traffic. */
const capturing = (wish: RecordingWish) => wish.console === true || wish.network === true;

/** What a recording directory leaves to keep once its session ended, however it is known to have ended. */
export function endedRecording(
  running: RunningRecord,
  directory: string,
  ended: {
    endedAt: number;
    reason: string | undefined;
    video: boolean;
    screenshot?: Buffer;
    console?: boolean;
    har?: boolean;
  },
): EndedRecording {
  const { key, user, pool, browserName, browserVersion, wish, format = 'mp4' } = running;
  return {
    session: {
      key,
      user,
      pool,
      browserName,
      browserVersion,
      ...(wish.name ? { name: wish.name } : {}),
      createdAt: running.openedAt ?? ended.endedAt,
      endedAt: ended.endedAt,
      ...(ended.reason ? { endReason: ended.reason } : {}),
    },
    ...(ended.video
      ? {
          video: {
            path: join(directory, `video.${format}`),
            format,
            fileName: wish.videoName ?? `${key}.${format}`,
          },
        }
      : {}),
    ...(wish.log
      ? { log: { path: join(directory, DRIVER_LOG), fileName: wish.logName ?? `${key}.log` } }
      : {}),
    ...(ended.console
      ? { console: { path: join(directory, CONSOLE_LOG), fileName: `${key}.console.log` } }
      : {}),
    ...(ended.har ? { har: { path: join(directory, NETWORK_HAR), fileName: `${key}.har` } } : {}),
    ...(ended.screenshot ? { screenshot: ended.screenshot } : {}),
  };
}

/** Writes the running record whole or not at all (a rename), so a kill mid-write leaves the previous one. */
async function writeRunningRecord(pending: PendingRecording, keeping: RecordingConfig): Promise<void> {
  const { key, user, pool, browserName, browserVersion, wish, openedAt, format } = pending;
  const record: RunningRecord = {
    key,
    user,
    pool,
    browserName,
    browserVersion,
    wish,
    openedAt,
    format,
    keeping,
  };
  const path = join(pending.directory, RUNNING_RECORD);
  await writeFile(`${path}.new`, JSON.stringify(record), { mode: 0o600 });
  await rename(`${path}.new`, path);
}
