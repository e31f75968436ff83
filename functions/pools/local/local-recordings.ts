/**
 * Ended local sessions' videos, driver logs, console logs, HARs and last frames on this machine's disk: one directory per session
 * (`<root>/<key>/`, with `meta.json` saying whose it is and what it holds), kept for the configured retention
 * and within the configured size, the oldest sessions' removed first. Everything is read from disk when asked,
 * so every gridgate process sharing the directory serves every recording in it, and a restart loses none.
 */
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  Artifact,
  ArtifactKind,
  ArtifactSession,
  ArtifactSource,
  ArtifactUsage,
  RecordedSession,
  RemovedArtifact,
} from '../../core/artifact-ports';
import type { RecordingConfig } from '../../core/config';

/** The default directory, under the temporary directory. */
export const RECORDINGS_DIRECTORY = 'gridgate-recordings';
const META = 'meta.json';
const SCREENSHOT = 'last-frame.jpg';
const LOG = 'driver.log';
const CONSOLE = 'console.log';
const HAR = 'network.har';
// Session keys are gridgate's own hex names; nothing else ever becomes a path here.
const KEY = /^[0-9a-f]{16}$/;

const CONTENT_TYPES = { mp4: 'video/mp4', webm: 'video/webm' } as const;

// The text files a session may keep beside its video: each one's name here and how it is served.
const TEXT_KINDS = ['log', 'console', 'har'] as const;
const TEXT_FILES: Record<(typeof TEXT_KINDS)[number], { name: string; contentType: string }> = {
  log: { name: LOG, contentType: 'text/plain; charset=utf-8' },
  console: { name: CONSOLE, contentType: 'text/plain; charset=utf-8' },
  // HAR 1.2 is JSON; viewers and DevTools' import take it as such.
  har: { name: HAR, contentType: 'application/json' },
};

/** What a session that ends leaves to keep: its record and the files it made (moved in, not copied). */
export interface EndedRecording {
  session: Omit<RecordedSession, 'video' | 'log' | 'console' | 'har' | 'screenshot'>;
  video?: { path: string; format: 'mp4' | 'webm'; fileName: string };
  log?: { path: string; fileName: string };
  console?: { path: string; fileName: string };
  har?: { path: string; fileName: string };
  screenshot?: Buffer;
}

/** A running session's log as far as it is written, served while the session runs. */
export type LiveLog = (key: string) => { path: string; fileName: string } | undefined;

export class LocalRecordings implements ArtifactSource {
  constructor(
    /** Read at each use: a config reload changes retention and size at once. */
    private readonly settings: () => RecordingConfig,
    private readonly liveLog: LiveLog = () => undefined,
  ) {}

  root(): string {
    return this.settings().directory ?? join(tmpdir(), RECORDINGS_DIRECTORY);
  }

  /** Moves a just-ended session's files in and writes its record; then keeps the whole within bounds. */
  async keep(ended: EndedRecording): Promise<RecordedSession> {
    const { key } = ended.session;
    if (!KEY.test(key)) throw new Error(`not a session key: ${key}`);
    const directory = join(this.root(), key);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const record: RecordedSession = { ...ended.session };
    if (ended.video) {
      const size = await moveInto(ended.video.path, join(directory, `video.${ended.video.format}`));
      if (size !== undefined)
        record.video = { size, format: ended.video.format, fileName: ended.video.fileName };
    }
    for (const kind of TEXT_KINDS) {
      const file = ended[kind];
      const size = file && (await moveInto(file.path, join(directory, TEXT_FILES[kind].name)));
      if (file && size !== undefined) record[kind] = { size, fileName: file.fileName };
    }
    if (ended.screenshot) {
      await writeFile(join(directory, SCREENSHOT), ended.screenshot, { mode: 0o600 });
      record.screenshot = true;
    }
    await writeRecord(directory, record);
    await this.prune(record.endedAt ?? Date.now());
    return record;
  }

  async find(session: ArtifactSession, kind: ArtifactKind | 'screenshot'): Promise<Artifact | undefined> {
    const record = await this.recorded(session.key);
    if (!record) return kind === 'log' ? this.live(session.key) : undefined;
    const directory = join(this.root(), record.key);
    if (kind === 'video' && record.video) {
      const { format, fileName } = record.video;
      const path = join(directory, `video.${format}`);
      const size = record.video.size ?? (await sizeOf(path));
      if (size === undefined) return undefined;
      return { kind: 'file', path, size, contentType: CONTENT_TYPES[format], fileName, live: false };
    }
    if (kind !== 'video' && kind !== 'screenshot' && record[kind]) {
      const { name, contentType } = TEXT_FILES[kind];
      const path = join(directory, name);
      const { fileName } = record[kind];
      const size = record[kind].size ?? (await sizeOf(path));
      if (size === undefined) return undefined;
      return { kind: 'file', path, size, contentType, fileName, live: false };
    }
    if (kind === 'screenshot' && record.screenshot) {
      const path = join(directory, SCREENSHOT);
      const size = await sizeOf(path);
      if (size === undefined) return undefined;
      return {
        kind: 'file',
        path,
        size,
        contentType: 'image/jpeg',
        fileName: `${record.key}.jpg`,
        live: false,
      };
    }
    return undefined;
  }

  /**
   * Removes an ended session's video, log, console log or HAR (Selenoid's DELETE); the session stays listed
   * while it has another, and goes whole (with its last frame) once it has none. A running session's log is
   * not removed.
   */
  async remove(session: ArtifactSession, kind: ArtifactKind): Promise<RemovedArtifact | undefined> {
    const record = await this.recorded(session.key);
    if (!record?.[kind]) return undefined;
    const directory = join(this.root(), record.key);
    const rest: RecordedSession = { ...record };
    delete rest[kind];
    if (!rest.video && TEXT_KINDS.every((other) => !rest[other])) {
      await rm(directory, { recursive: true, force: true });
      return { kind: 'removed' };
    }
    await writeRecord(directory, rest);
    const file = kind === 'video' ? `video.${record.video?.format}` : TEXT_FILES[kind].name;
    await rm(join(directory, file), { force: true });
    return { kind: 'removed' };
  }

  async recorded(key: string): Promise<RecordedSession | undefined> {
    if (!KEY.test(key)) return undefined;
    try {
      return JSON.parse(await readFile(join(this.root(), key, META), 'utf8')) as RecordedSession;
    } catch {
      return undefined;
    }
  }

  async list(): Promise<RecordedSession[]> {
    const names = await readdir(this.root()).catch(() => [] as string[]);
    const records = await Promise.all(
      names.filter((name) => KEY.test(name)).map((key) => this.recorded(key)),
    );
    return records
      .filter((record): record is RecordedSession => record !== undefined)
      .sort((a, b) => (b.endedAt ?? b.createdAt) - (a.endedAt ?? a.createdAt));
  }

  async usage(): Promise<ArtifactUsage> {
    const records = await this.list();
    const { maxDiskSize, retention } = this.settings();
    return {
      where: `disk ${this.root()}`,
      bytes: records.reduce((sum, record) => sum + bytesOf(record), 0),
      sessions: records.length,
      maxBytes: maxDiskSize,
      retentionMs: retention,
    };
  }

  /**
   * Removes the recordings of sessions that ended longer ago than the retention, then the oldest ones until
   * the rest fit in maxDiskSize. Returns how many sessions' recordings went.
   */
  async prune(now: number): Promise<number> {
    const { retention, maxDiskSize } = this.settings();
    const oldestFirst = (await this.list()).reverse();
    let total = oldestFirst.reduce((sum, record) => sum + bytesOf(record), 0);
    let removed = 0;
    for (const record of oldestFirst) {
      const expired = now - (record.endedAt ?? record.createdAt) >= retention;
      if (!expired && total <= maxDiskSize) break;
      await rm(join(this.root(), record.key), { recursive: true, force: true });
      total -= bytesOf(record);
      removed++;
    }
    return removed;
  }

  private async live(key: string): Promise<Artifact | undefined> {
    const log = this.liveLog(key);
    const size = log && (await sizeOf(log.path));
    if (!log || size === undefined) return undefined;
    const { path, fileName } = log;
    return { kind: 'file', path, size, contentType: 'text/plain; charset=utf-8', fileName, live: true };
  }
}

/** Writes a session's record whole or not at all (a rename), so a reader never sees half of one. */
async function writeRecord(directory: string, record: RecordedSession): Promise<void> {
  await writeFile(join(directory, `${META}.new`), JSON.stringify(record), { mode: 0o600 });
  await rename(join(directory, `${META}.new`), join(directory, META));
}

/** A file's size, or undefined when it is not there. */
const sizeOf = async (path: string) => (await stat(path).catch(() => undefined))?.size;

const bytesOf = (record: RecordedSession) =>
  (record.video?.size ?? 0) + TEXT_KINDS.reduce((sum, kind) => sum + (record[kind]?.size ?? 0), 0);

/** Moves a file (copying when it lies on another file system); its size, or undefined when it was never made. */
async function moveInto(from: string, to: string): Promise<number | undefined> {
  const found = await stat(from).catch(() => undefined);
  if (!found?.isFile()) return undefined;
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to);
    await rm(from, { force: true });
  }
  return found.size;
}
