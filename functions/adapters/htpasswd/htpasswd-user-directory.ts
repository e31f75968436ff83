/**
 * UserDirectory backed by an Apache htpasswd file (ggr's `-users`), read again whenever it changes.
 *
 * Changes are found by polling the file's stat every two seconds (see file-fingerprint.ts for why not
 * fs.watch): editors and `htpasswd` itself replace the file by rename.
 */
import { type PeriodicTask, runEvery } from '../../core/periodic-task';
import type { Clock, Logger, UserDirectory } from '../../core/ports';
import { fingerprint, fingerprintSync } from '../node/file-fingerprint';
import { readHtpasswdFile, readHtpasswdFileSync, UsersFileError } from './htpasswd-file';
import { verifyPassword } from './password-hash';
import { VerificationCache } from './verification-cache';

export interface HtpasswdOptions {
  clock: Clock;
  logger: Logger;
  /** How often the file is checked for changes; 0 turns reloading off. */
  pollMs?: number;
  /** How long a successful check is remembered (a reload forgets every one at once). */
  cacheMs?: number;
}

const DEFAULT_POLL_MS = 2000;
const DEFAULT_CACHE_MS = 60_000;

export class HtpasswdUserDirectory implements UserDirectory {
  private readonly cache: VerificationCache;
  private readonly polling: PeriodicTask | undefined;

  /** Reads the file now; a missing, unreadable or invalid file throws UsersFileError naming it. */
  static open(path: string, options: HtpasswdOptions): HtpasswdUserDirectory {
    // Taken before reading, so a change made while the file is read is still seen by the next poll.
    const fingerprint = fingerprintSync(path);
    return new HtpasswdUserDirectory(path, readHtpasswdFileSync(path), fingerprint, options);
  }

  private constructor(
    readonly path: string,
    private users: Map<string, string>,
    private fingerprint: string,
    private readonly options: HtpasswdOptions,
  ) {
    this.cache = new VerificationCache(options.clock, options.cacheMs ?? DEFAULT_CACHE_MS);
    options.logger.log('USERS_LOADED', { path, users: users.size, reload: false });
    const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    if (pollMs > 0) this.polling = runEvery('users poll', pollMs, () => this.poll(), options.logger);
  }

  verify(user: string, password: string): Promise<boolean> {
    const hash = this.users.get(user);
    if (hash === undefined) return Promise.resolve(false);
    return this.cache.verify(user, password, () => verifyPassword(password, hash));
  }

  /** Stops watching the file. */
  close(): void {
    this.polling?.stop();
  }

  private async poll(): Promise<void> {
    const seen = await fingerprint(this.path);
    if (seen === this.fingerprint) return;
    // Recorded even when the reload fails, so a broken or missing file is reported once, not every poll.
    this.fingerprint = seen;
    await this.reload();
  }

  /** Reads the file again; on any problem keeps the users it had and says why. */
  private async reload(): Promise<void> {
    const { logger } = this.options;
    try {
      this.users = await readHtpasswdFile(this.path);
    } catch (error) {
      const reason = error instanceof UsersFileError ? error.problems.join('; ') : String(error);
      logger.log('USERS_RELOAD_FAILED', { path: this.path, error: reason, users: this.users.size });
      return;
    }
    // A changed password or a removed user must not live on in remembered checks.
    this.cache.clear();
    logger.log('USERS_LOADED', { path: this.path, users: this.users.size, reload: true });
  }
}
