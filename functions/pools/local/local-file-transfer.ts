/**
 * Selenium Grid 4's file transfer for local sessions, which chromedriver does not serve: uploads unpacked into
 * the session's directory, managed downloads read from it. Only for a browser that runs now.
 */
import { dirname } from 'node:path';
import { invalidSessionId, WebDriverError } from '../../core/errors';
import type { DownloadedFile, DownloadedFileReader, FileTransfer } from '../../core/ports';
import { emptyDownloads, findDownload, listDownloads } from './downloaded-files';
import { type SessionDirectories, SessionEndedError } from './session-directories';
import { unpackUpload } from './unpack-upload';

export class LocalFileTransfer implements FileTransfer {
  constructor(
    private readonly directories: SessionDirectories,
    /** Whether the browser of this handle serves a session now. */
    private readonly running: (handle: string) => boolean,
  ) {}

  async upload(handle: string, zip: Buffer, maxBytes: number): Promise<string> {
    this.requireRunning(handle);
    const uploads = await this.directories.make(handle, 'uploads').catch(ended(handle));
    const file = await unpackUpload(zip, uploads, maxBytes);
    // Its folder and the file, for a browser of a user of its own to read.
    await this.directories.giveToBrowser(handle, dirname(file));
    await this.directories.giveToBrowser(handle, file);
    return file;
  }

  async downloads(handle: string): Promise<DownloadedFile[]> {
    return listDownloads(await this.downloadsDirectory(handle));
  }

  async download(handle: string, name: string): Promise<DownloadedFileReader> {
    return findDownload(await this.downloadsDirectory(handle), name);
  }

  async deleteDownloads(handle: string): Promise<void> {
    await emptyDownloads(await this.downloadsDirectory(handle));
  }

  private async downloadsDirectory(handle: string): Promise<string> {
    this.requireRunning(handle);
    const directory = await this.directories.existing(handle, 'downloads');
    if (directory) return directory;
    // Selenium Grid 4 refuses the same way: downloads are asked for when the session is created.
    throw new WebDriverError(
      'unsupported operation',
      'managed downloads are not enabled for this session; ask for them with the capability "se:downloadsEnabled": true',
    );
  }

  private requireRunning(handle: string): void {
    if (!this.running(handle)) throw invalidSessionId('the session has ended: its browser is gone');
  }
}

/** A session that ended while its request was on the way: as if it had ended before. */
function ended(handle: string) {
  return (error: unknown): never => {
    if (error instanceof SessionEndedError) throw invalidSessionId(`the session has ended: ${error.message}`);
    throw new Error(`cannot make the directory of browser ${handle}`, { cause: error });
  };
}
