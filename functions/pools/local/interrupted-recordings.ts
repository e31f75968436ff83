/**
 * What a gridgate process that was killed outright (SIGKILL, out of memory) was recording. At the next start of
 * a gridgate on the machine (it or another), before the orphan sweep removes what it left, each of its recording
 * directories that holds an opened session's running record (session-recordings.ts) is kept like any ended
 * session's recordings, ended `server killed` when its files were last written, where and as the killed gridgate
 * kept recordings (its folder, its retention and size cap).
 *
 * The video is finished as far as it can be: an ffmpeg still writing it (its input closed when its owner died,
 * so it is ending by itself) gets the flush time, then is killed; then the video is copied into a fresh file of
 * the same format without re-encoding, which drops a fragment cut in half and states the true duration. When
 * that copy fails the video is kept as it is: fragmented MP4 plays up to its last whole fragment.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SESSION_DIRECTORY_PREFIX } from '../../adapters/fs/session-folder-names';
import type { RecordedSession } from '../../core/artifact-ports';
import type { Logger } from '../../core/ports';
import { LocalRecordings } from './local-recordings';
import { isAlive } from './orphan-sweep';
import { eventsPath, writeHar } from './page-capture';
import {
  CONSOLE_LOG,
  DRIVER_LOG,
  endedRecording,
  NETWORK_HAR,
  RUNNING_RECORD,
  type RunningRecord,
} from './session-recordings';

/** How a session is said to have ended when the gridgate running it was killed. */
export const SERVER_KILLED = 'server killed';

const OWNED = new RegExp(`^${SESSION_DIRECTORY_PREFIX}(\\d+)-`);
const POLL_MS = 50;

export interface InterruptedRecordingsOptions {
  /** This gridgate's recordings: where a running record that does not say how it is kept goes. */
  store: LocalRecordings;
  /** The ffmpeg binary, for finishing a video (only asked when there is one). */
  ffmpeg: () => Promise<string>;
  /** How long an ffmpeg left writing, and then the copy, may take. */
  flushMs: number;
  logger: Logger;
  /** Where session directories are made (the temporary directory). */
  directory?: string;
}

/** Keeps the recordings that dead gridgate processes left; answers the sessions kept. */
export async function keepInterruptedRecordings(
  options: InterruptedRecordingsOptions,
): Promise<RecordedSession[]> {
  const directory = options.directory ?? tmpdir();
  const names = await readdir(directory).catch(() => [] as string[]);
  const orphaned = names.filter((name) => {
    const owner = OWNED.exec(name)?.[1];
    return owner !== undefined && !isAlive(Number(owner));
  });
  const kept: { session: RecordedSession; store: LocalRecordings }[] = [];
  for (const name of orphaned) {
    const path = join(directory, name);
    try {
      const record = await claim(path);
      if (!record) continue;
      const store = keptBy(record, options.store);
      kept.push({ session: await keepOne(path, record, store, options), store });
    } catch (error) {
      options.logger.log('BACKGROUND_TASK_FAILED', {
        task: 'keep interrupted recording',
        directory: path,
        error: String(error),
      });
    }
  }
  // Kept as of the time each ended, which may be longer ago than the retention: pruned as of now.
  const stores = new Map(kept.map(({ store }) => [store.root(), store]));
  for (const store of stores.values()) await store.prune(Date.now());
  const left = await Promise.all(kept.map(({ session, store }) => store.recorded(session.key)));
  return left.filter((session): session is RecordedSession => session !== undefined);
}

/**
 * Where and how a session is kept: as the gridgate that ran it keeps recordings (its folder, retention and
 * size cap), since the first gridgate of the machine to start after the kill may be another, with its own.
 */
function keptBy(record: RunningRecord, own: LocalRecordings): LocalRecordings {
  const { keeping } = record;
  return keeping ? new LocalRecordings(() => keeping) : own;
}

/**
 * The directory's running record, taken by renaming it (so of two gridgate processes starting at once only one
 * keeps it); undefined when there is none, another took it, or its session never opened (nothing recorded).
 */
async function claim(path: string): Promise<RunningRecord | undefined> {
  const claimed = join(path, `${RUNNING_RECORD}.${process.pid}`);
  try {
    await rename(join(path, RUNNING_RECORD), claimed);
  } catch {
    return undefined;
  }
  const record = JSON.parse(await readFile(claimed, 'utf8')) as RunningRecord;
  return record.openedAt === undefined ? undefined : record;
}

async function keepOne(
  path: string,
  record: RunningRecord,
  store: LocalRecordings,
  options: InterruptedRecordingsOptions,
): Promise<RecordedSession> {
  await endWriters(path, options.flushMs);
  const format = record.format ?? 'mp4';
  const video = join(path, `video.${format}`);
  const videoFile = record.wish.video ? await stat(video).catch(() => undefined) : undefined;
  const log = record.wish.log ? await stat(join(path, DRIVER_LOG)).catch(() => undefined) : undefined;
  const consoleFile = record.wish.console
    ? await stat(join(path, CONSOLE_LOG)).catch(() => undefined)
    : undefined;
  // The network events written so far make the HAR, as at a session's end (the last line may be cut short).
  const har = record.wish.network && (await harOfKilled(join(path, NETWORK_HAR), options));
  // The session ended when its files were last written; retention counts from then.
  const endedAt = Math.floor(Math.max(record.openedAt ?? 0, videoFile?.mtimeMs ?? 0, log?.mtimeMs ?? 0));
  if (videoFile?.isFile()) await finishVideo(video, format, options);
  return store.keep(
    endedRecording(record, path, {
      endedAt,
      reason: SERVER_KILLED,
      video: videoFile?.isFile() ?? false,
      console: consoleFile?.isFile() ?? false,
      har: har === true,
    }),
  );
}

/** The HAR of a killed session's network events, if it had any; false when it cannot be made. */
async function harOfKilled(har: string, options: InterruptedRecordingsOptions): Promise<boolean> {
  const events = await stat(eventsPath(har)).catch(() => undefined);
  if (!events?.isFile()) return false;
  try {
    await writeHar(har);
    return true;
  } catch (error) {
    options.logger.log('BACKGROUND_TASK_FAILED', { task: 'make interrupted HAR', har, error: String(error) });
    return false;
  }
}

/** Copies the video into a fresh file of its format without re-encoding; keeps the original if that fails. */
async function finishVideo(video: string, format: 'mp4' | 'webm', options: InterruptedRecordingsOptions) {
  const finished = `${video}.finished`;
  try {
    await promisify(execFile)(
      await options.ffmpeg(),
      ['-hide_banner', '-loglevel', 'error', '-i', video, '-c', 'copy', '-f', format, '-y', finished],
      { timeout: options.flushMs, killSignal: 'SIGKILL' },
    );
    if (((await stat(finished)).size ?? 0) > 0) await rename(finished, video);
  } catch (error) {
    options.logger.log('BACKGROUND_TASK_FAILED', {
      task: 'finish interrupted video',
      video,
      error: String(error),
    });
  } finally {
    await rm(finished, { force: true });
  }
}

/** Waits (up to `ms`) for the ffmpeg processes writing into `path` to end, then kills what is left. */
async function endWriters(path: string, ms: number): Promise<void> {
  const writers = await writersInto(path);
  const deadline = Date.now() + ms;
  while (writers.some(running) && Date.now() < deadline) await delay(POLL_MS);
  for (const pid of writers.filter(running)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // It ended meanwhile.
    }
  }
  while (writers.some(running) && Date.now() < deadline + ms) await delay(POLL_MS);
}

/** Whether the process still runs: neither gone nor a zombie its new parent has not reaped yet. */
function running(pid: number): boolean {
  try {
    // /proc/PID/stat: "PID (comm) STATE …"; the name may hold spaces and parentheses, the state follows the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The ffmpeg processes whose command line names a file in `path` (a dead gridgate's recorder). */
async function writersInto(path: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const found: number[] = [];
  for (const pid of pids) {
    try {
      if ((await readFile(`/proc/${pid}/comm`, 'utf8')).trim() !== 'ffmpeg') continue;
      const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
      if (args.some((arg) => arg.startsWith(`${path}/`))) found.push(Number(pid));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
