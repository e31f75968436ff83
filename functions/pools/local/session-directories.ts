/**
 * Each local session's own directory on this machine, for what passes between a test and its browser: the
 * files it uploads (`uploads/`) and, when it enables managed downloads, what its browser downloads
 * (`downloads/`). Further artifacts of a session belong beside them. The directory is made when the session
 * first needs it and removed whole when the session ends; its name carries the owning gridgate's pid, so the
 * start-up sweep (orphan-sweep.ts) removes what a gridgate that died left behind, and the browser's handle, so
 * any process of the server (a worker proxying the session's CDP or BiDi socket) knows it from the session ID.
 */
import { lchown, lstat, mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESSION_DIRECTORY_PREFIX } from '../../adapters/fs/session-folder-names';

export type SessionSubdirectory = 'uploads' | 'downloads';

/**
 * The directory of the browser `handle` that the gridgate process `owner` launched (the primary's pid when
 * the server has workers), in `root`. Only for a handle that is one name (a local launcher's are pids): one
 * that could climb out of `root` names no directory.
 */
export function sessionDirectoryOf(handle: string, owner = process.pid, root = tmpdir()): string | undefined {
  return /^[\w-]{1,63}$/.test(handle)
    ? join(root, `${SESSION_DIRECTORY_PREFIX}${owner}-${handle}`)
    : undefined;
}

export class SessionDirectories {
  // Registered handles; the directory's promise once made, so two first uses at once make one directory.
  private readonly directories = new Map<string, Promise<string> | undefined>();

  constructor(
    private readonly root = tmpdir(),
    /** The user a browser's Chromium runs as when not gridgate's (browser-user.ts): it gets the directory. */
    private readonly browserUser: (handle: string) => number | undefined = () => undefined,
  ) {}

  /** Where the directory of this browser is or will be (it need not exist). */
  pathOf(handle: string): string | undefined {
    return sessionDirectoryOf(handle, process.pid, this.root);
  }

  /**
   * Registers a browser: its directory may be made from now until remove(). Nothing is made for a handle
   * never opened or already removed, so a late request cannot leave a directory that nothing removes.
   */
  open(handle: string): void {
    if (!this.directories.has(handle)) this.directories.set(handle, undefined);
  }

  /**
   * Makes the session's directory now, for a browser of a user of its own (browser-user.ts), which cannot
   * make it in the temporary folder itself when its client names a download folder inside it.
   */
  async prepare(handle: string): Promise<void> {
    await this.directory(handle);
  }

  /** The session's subdirectory, made (with the session's directory) if it is not there yet. */
  async make(handle: string, sub: SessionSubdirectory): Promise<string> {
    const path = join(await this.directory(handle), sub);
    // Not recursive: once remove() took the session's directory away, nothing here brings it back.
    await mkdir(path, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    await this.giveToBrowser(handle, path);
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

  /**
   * Removes the session's directory and everything in it. Its name is known from the handle, so what the
   * browser itself put there (a download folder its client named inside it) goes too, made here or not.
   */
  async remove(handle: string): Promise<void> {
    const opened = this.directories.has(handle);
    const directory = this.directories.get(handle);
    this.directories.delete(handle);
    await directory?.catch(() => undefined);
    const path = this.pathOf(handle);
    if (opened && path) await rm(path, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  }

  private directory(handle: string): Promise<string> {
    if (!this.directories.has(handle)) return Promise.reject(new SessionEndedError(handle));
    let directory = this.directories.get(handle);
    if (!directory) {
      directory = this.makeDirectory(handle);
      this.directories.set(handle, directory);
    }
    return directory;
  }

  /**
   * Made 0700 and not recursively, so nothing another user put at that name is taken: a name that exists is
   * used only when it is a directory of this user (one the session's browser made first, for a download
   * folder its client named inside), never a link.
   */
  private async makeDirectory(handle: string): Promise<string> {
    const path = this.pathOf(handle);
    if (!path) throw new Error(`no session directory for browser ${handle}`);
    try {
      await mkdir(path, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const found = await lstat(path);
      const owners = [process.getuid?.(), this.browserUser(handle)];
      if (!found.isDirectory() || !owners.includes(found.uid))
        throw new Error(`${path} exists and is not this user's or its browser's directory`);
    }
    await this.giveToBrowser(handle, path);
    return path;
  }

  /** What gridgate made for the browser, given to the browser's user when it has one of its own. */
  async giveToBrowser(handle: string, path: string): Promise<void> {
    const user = this.browserUser(handle);
    if (user !== undefined) await lchown(path, user, user);
  }
}

/** A directory asked for a browser that is not (or no longer) running. */
export class SessionEndedError extends Error {
  constructor(handle: string) {
    super(`no running browser ${handle}`);
    this.name = 'SessionEndedError';
  }
}
