/**
 * Unpacks an upload (Selenium Grid 4's `POST /session/{id}/se/file`: a zip holding one file) into a directory
 * of its own, and refuses what could write elsewhere or without bound: not a zip, no file or several, a folder,
 * a name with a path in it (`../`, absolute, backslashes), a symbolic link or device, an encrypted entry, and
 * a file that inflates past the limit (the bytes are counted as they inflate: a zip's sizes are claims).
 * Whatever it refuses leaves nothing behind.
 */
import { constants } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw } from 'node:zlib';
import type yauzl from 'yauzl';
import { invalidArgument, WebDriverError } from '../../core/errors';

// The file type in the Unix mode a zip made on Unix keeps in the high 16 bits of its external attributes.
const TYPE_MASK = 0o170000;
const REGULAR_FILE = 0o100000;
const MADE_ON_UNIX = 3;
// Compression methods (APPNOTE 4.4.5): what zip tools write; anything else is refused.
const STORED = 0;
const DEFLATED = 8;
// O_NOFOLLOW and O_EXCL: a name that already exists, even as a link, is never written through.
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** The file's name, or why it cannot be a file at the top of the upload's directory. */
function refusedName(name: string): string | undefined {
  if (name.endsWith('/')) return `${JSON.stringify(name)} is a folder, not a file`;
  if (name.includes('/')) return `${JSON.stringify(name)} is inside a folder; upload the file alone`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (name === '' || name === '.' || /[\u0000-\u001f\u007f]/.test(name))
    return `${JSON.stringify(name)} is not a file name`;
  return undefined;
}

function fileType(entry: yauzl.Entry): number {
  if (entry.versionMadeBy >> 8 !== MADE_ON_UNIX) return REGULAR_FILE;
  const type = (entry.externalFileAttributes >>> 16) & TYPE_MASK;
  // Zip tools on Unix that record no mode leave it 0: a plain file.
  return type === 0 ? REGULAR_FILE : type;
}

/** The one entry, checked, or the error that refuses the upload. */
async function onlyFile(archive: yauzl.ZipFile, maxBytes: number): Promise<yauzl.Entry> {
  const entries = archive.eachEntry();
  let first: IteratorResult<yauzl.Entry>;
  let second: IteratorResult<yauzl.Entry>;
  try {
    first = await entries.next();
    second = first.done ? first : await entries.next();
  } catch (error) {
    // yauzl refuses absolute names, `..` segments and backslashes here (its validateFileName).
    throw invalidArgument(`the upload's zip is refused: ${(error as Error).message}`);
  }
  if (first.done) throw invalidArgument('the upload holds no file');
  if (!second.done) throw invalidArgument('the upload holds more than one file; send one file per upload');
  const entry = first.value;
  const refused = refusedName(entry.fileName);
  if (refused) throw invalidArgument(`the upload is refused: ${refused}`);
  if (fileType(entry) !== REGULAR_FILE)
    throw invalidArgument(`the upload is refused: ${JSON.stringify(entry.fileName)} is not a plain file`);
  if (entry.isEncrypted()) throw invalidArgument('the upload is refused: its file is encrypted');
  if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED)
    throw invalidArgument(
      `the upload is refused: compression method ${entry.compressionMethod} is not stored or deflate`,
    );
  if (entry.uncompressedSize > maxBytes) throw tooLarge(maxBytes);
  return entry;
}

function tooLarge(maxBytes: number): WebDriverError {
  return invalidArgument(`the uploaded file unpacks to more than this grid accepts (${maxBytes} bytes)`, {
    status: 413,
  });
}

/** Fails once more than `maxBytes` went through: the inflated size, whatever the zip claims; counts them. */
function countedUpTo(maxBytes: number): Transform & { seen: number } {
  const counter = Object.assign(
    new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        counter.seen += chunk.length;
        callback(counter.seen > maxBytes ? tooLarge(maxBytes) : null, chunk);
      },
    }),
    { seen: 0 },
  );
  return counter;
}

/**
 * Unpacks the zip's one file into a new directory under `parent` and answers the file's path. Refusals are
 * `invalid argument` errors (413 for a file past `maxBytes`); the new directory is gone after any failure.
 */
export async function unpackUpload(zip: Buffer, parent: string, maxBytes: number): Promise<string> {
  // yauzl is loaded by the first upload, not with the server: most sessions upload nothing.
  const { fromBufferPromise } = (await import('yauzl')).default;
  let archive: yauzl.ZipFile;
  try {
    archive = await fromBufferPromise(zip, { strictFileNames: true });
  } catch (error) {
    throw invalidArgument(`the upload is not a zip file: ${(error as Error).message}`);
  }
  const entry = await onlyFile(archive, maxBytes);
  const directory = await mkdtemp(join(parent, 'upload-'));
  const path = join(directory, entry.fileName);
  try {
    // The entry's bytes straight from the buffer, inflated by Node's own streams: yauzl's hand-piped
    // inflate stream could leave a corrupt entry neither failing nor ending.
    const { fileDataStart } = await archive.readLocalFileHeaderPromise(entry, { minimal: true });
    const data = zip.subarray(fileDataStart, fileDataStart + entry.compressedSize);
    const counter = countedUpTo(maxBytes);
    const output = await open(path, CREATE_NEW, 0o600);
    const input = Readable.from([data]);
    const file = output.createWriteStream();
    if (entry.compressionMethod === DEFLATED) await pipeline(input, createInflateRaw(), counter, file);
    else await pipeline(input, counter, file);
    if (counter.seen !== entry.uncompressedSize)
      throw new Error(`it unpacks to ${counter.seen} bytes where it claims ${entry.uncompressedSize}`);
    return path;
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    if (error instanceof WebDriverError) throw error;
    // Corrupt deflate data, or more or fewer bytes than the zip claimed.
    throw invalidArgument(`the upload's zip is corrupt: ${(error as Error).message}`);
  }
}
