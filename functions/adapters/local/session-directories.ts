/**
 * Each local session's own directory on this machine, for what passes between a test and its browser: the
 * files it uploads (`uploads/`) and, when it enables managed downloads, what its browser downloads
 * (`downloads/`). Further artifacts of a session belong beside them. The directory is made when the session
 * first needs it and removed whole when the session ends; its name carries the owning gridgate's pid, so the
 * start-up sweep (orphan-sweep.ts) removes what a gridgate that died left behind.
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Session directories are named gridgate-session-<pid>-…, like the profiles. */
export const SESSION_DIRECTORY_PREFIX = 'gridgate-session-';

export type SessionSubdirectory = 'uploads' | 'downloads';

export class SessionDirectories {
  // Registered handles; the directory's promise once made, so two first uses at once make one directory.
  private readonly directories = new Map<string, Promise<string> | undefined>();

  constructor(private readonly root = tmpdir()) {}

  /**
   * Registers a browser: its directory may be made from now until remove(). Nothing is made for a handle
   * never opened or already removed, so a late request cannot leave a directory that nothing removes.
   */
  open(handle: string): void {
    if (!this.directories.has(handle)) this.directories.set(handle, undefined);
  }

  /** The session's subdirectory, made (with the session's directory) if it is not there yet. */
  async make(handle: string, sub: SessionSubdirectory): Promise<string> {
    const path = join(await this.directory(handle), sub);
    // Not recursive: once remove() took the session's directory away, nothing here brings it back.
    await mkdir(path, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    return path;
  }

  /** The session's subdirectory if it was made, e.g. downloads only for a session that enabled them. */
  async existing(handle: string, sub: SessionSubdirectory): Promise<string | undefined> {
    const directory = this.directories.get(handle);
    if (!directory) return undefined;
    const path = join(await directory, sub);
    const found = await stat(path).catch(() => undefined);
    return found?.isDirectory() ? path : undefined;
  }

  /** Removes the session's directory and everything in it; nothing happens for a handle without one. */
  async remove(handle: string): Promise<void> {
    const directory = this.directories.get(handle);
    this.directories.delete(handle);
    const path = await directory?.catch(() => undefined);
    if (path) await rm(path, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  }

  private directory(handle: string): Promise<string> {
    if (!this.directories.has(handle)) return Promise.reject(new SessionEndedError(handle));
    let directory = this.directories.get(handle);
    if (!directory) {
      directory = mkdtemp(join(this.root, `${SESSION_DIRECTORY_PREFIX}${process.pid}-`));
      this.directories.set(handle, directory);
    }
    return directory;
  }
}

/** A directory asked for a browser that is not (or no longer) running. */
export class SessionEndedError extends Error {
  constructor(handle: string) {
    super(`no running browser ${handle}`);
    this.name = 'SessionEndedError';
  }
}
