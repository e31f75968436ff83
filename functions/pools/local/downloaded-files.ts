/**
 * What a local session's browser downloaded into its downloads directory, as Selenium Grid 4's managed
 * downloads describe it: the plain files at the top of the directory (never a link, never anything below), a
 * file found only by its exact name among them (so no name reaches outside), read as it is or as a zip.
 */
import { constants } from 'node:fs';
import { type FileHandle, lstat, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { invalidArgument } from '../../core/errors';
import type { DownloadedFile, DownloadedFileReader } from '../../core/ports';

/** The plain files in the directory, by name. */
export async function listDownloads(directory: string): Promise<DownloadedFile[]> {
  const files: DownloadedFile[] = [];
  for (const name of (await readdir(directory)).sort()) {
    const stats = await lstat(join(directory, name)).catch(() => undefined);
    if (!stats?.isFile()) continue; // gone meanwhile, or not a plain file
    files.push({
      name,
      creationTime: Math.round(stats.birthtimeMs || stats.ctimeMs),
      lastModifiedTime: Math.round(stats.mtimeMs),
      size: stats.size,
    });
  }
  return files;
}

/**
 * The downloaded file of exactly this name, or `invalid argument` naming the ones there are. The file is
 * opened here, before anything is answered: Chromium writes a download under a temporary name and renames it
 * when done, so a name just listed may be gone a moment later (then it is refused like any missing one), and
 * once open the bytes are read from that file whatever it is renamed to meanwhile. Read one of the two
 * streams once: it closes the file when it ends or is destroyed.
 */
export async function findDownload(directory: string, name: string): Promise<DownloadedFileReader> {
  const files = await listDownloads(directory);
  const listed = files.find((candidate) => candidate.name === name);
  const handle = listed && (await openPlainFile(join(directory, listed.name)));
  if (!listed || !handle) {
    const names = files
      .filter((candidate) => candidate !== listed)
      .map((candidate) => JSON.stringify(candidate.name))
      .join(', ');
    throw invalidArgument(
      `no downloaded file is named ${JSON.stringify(name)}; there are: ${names || 'none'}`,
    );
  }
  const stats = await handle.stat();
  // The size and times of the file as it is now, and only that many bytes read: a download still being
  // written must not outgrow the Content-Length or the zip entry's size already given.
  const file = { ...listed, size: stats.size, lastModifiedTime: Math.round(stats.mtimeMs) };
  const read = () => readWhole(handle, stats.size);
  // yazl is loaded by the first download, not with the server: most sessions download nothing.
  const { ZipFile } = (await import('yazl')).default;
  return { file, bytes: read, zipped: () => zipOf(new ZipFile(), read(), file) };
}

/**
 * The file opened for reading, or undefined when it is gone or is no longer a plain file: a name swapped for a
 * link since it was listed is not followed, nor does a pipe put in its place hold the open up.
 */
async function openPlainFile(path: string): Promise<FileHandle | undefined> {
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const handle = await open(path, flags).catch(() => undefined);
  if (!handle) return undefined;
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return undefined;
}

/** The file's first `size` bytes; the file is closed when the stream ends or is destroyed. */
function readWhole(handle: FileHandle, size: number): Readable {
  if (size === 0) {
    void handle.close().catch(() => undefined);
    return Readable.from([]);
  }
  return handle.createReadStream({ start: 0, end: size - 1 });
}

/**
 * A zip holding the one file under its own name, made as it is read. yazl reports a failed read on the
 * ZipFile, not on its output: unheard, that 'error' event would end the process; it ends the output instead.
 * The file is closed with the output, also when the reader goes away before the end.
 */
function zipOf(zip: import('yazl').ZipFile, bytes: Readable, file: DownloadedFile): Readable {
  const output = zip.outputStream as Readable;
  zip.on('error', (error: Error) => output.destroy(error));
  output.once('close', () => bytes.destroy());
  zip.addReadStream(bytes, file.name, { size: file.size, mtime: new Date(file.lastModifiedTime) });
  zip.end();
  return output;
}

/** Deletes every file the browser downloaded (the directory itself stays, for the next download). */
export async function emptyDownloads(directory: string): Promise<void> {
  const names = await readdir(directory);
  await Promise.all(names.map((name) => rm(join(directory, name), { recursive: true, force: true })));
}
