/**
 * What a local session's browser downloaded into its downloads directory, as Selenium Grid 4's managed
 * downloads describe it: the plain files at the top of the directory (never a link, never anything below), a
 * file found only by its exact name among them (so no name reaches outside), read as it is or as a zip.
 */
import { createReadStream } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
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

/** The downloaded file of exactly this name, or `invalid argument` naming the ones there are. */
export async function findDownload(directory: string, name: string): Promise<DownloadedFileReader> {
  const files = await listDownloads(directory);
  const file = files.find((candidate) => candidate.name === name);
  if (!file) {
    const names = files.map((candidate) => JSON.stringify(candidate.name)).join(', ') || 'none';
    throw invalidArgument(`no downloaded file is named ${JSON.stringify(name)}; there are: ${names}`);
  }
  const path = join(directory, file.name);
  // yazl is loaded by the first download, not with the server: most sessions download nothing.
  const { ZipFile } = (await import('yazl')).default;
  return {
    file,
    bytes: () => createReadStream(path),
    zipped: () => zipOf(new ZipFile(), path, file.name),
  };
}

/** A zip holding the one file under its own name, made as it is read. */
function zipOf(zip: import('yazl').ZipFile, path: string, name: string): Readable {
  zip.addFile(path, name);
  zip.end();
  return zip.outputStream as Readable;
}

/** Deletes every file the browser downloaded (the directory itself stays, for the next download). */
export async function emptyDownloads(directory: string): Promise<void> {
  const names = await readdir(directory);
  await Promise.all(names.map((name) => rm(join(directory, name), { recursive: true, force: true })));
}
