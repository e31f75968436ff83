/**
 * UserDirectory backed by an Apache htpasswd file (ggr's `-users`), read again whenever it changes.
 *
 * Changes are found by polling the file's stat every two seconds (see file-fingerprint.ts for why not
 * fs.watch): editors and `htpasswd` itself replace the file by rename.
 *
 * Sign-ins cannot stall the server: checks are remembered (right and wrong ones), run on worker threads
 * through a bounded, per-client fair queue, and an unknown name costs what a known one does.
 */

import { availableParallelism } from 'node:os';
import { type PeriodicTask, runEvery } from '../../core/periodic-task';
import type { Clock, Logger, UserDirectory } from '../../core/ports';
import { fingerprint, fingerprintSync } from '../fs/file-fingerprint';
import { dummyHashLike } from './dummy-hash';
import { readHtpasswdFile, readHtpasswdFileSync, UsersFileError } from './htpasswd-file';
import { PasswordCheckQueue, type PasswordCheckRunner, type PasswordChecks } from './password-check-queue';
import { verifyPassword } from './password-hash';
import { PasswordWorkers } from './password-workers';
import { VerificationCache } from './verification-cache';

export interface HtpasswdOptions {
  clock: Clock;
  logger: Logger;
  /** How often the file is checked for changes; 0 turns reloading off. */
  pollMs?: number;
  /** How long a successful check is remembered (a reload forgets every one at once). */
  cacheMs?: number;
  /** How long a wrong password is remembered, so sending it again costs no check. */
  failureCacheMs?: number;
  /**
   * Threads that check passwords; 0 checks on the event loop, for a runtime that serves one request at
   * a time (Lambda), where there is no other request to hold up. Default: the cores but one, 1 to 4.
   */
  threads?: number;
  /** Checks that may wait for a thread, over all clients (default 64). */
  maxWaiting?: number;
  /** Checks one client address may have waiting or running (default 4). */
  perClient?: number;
  /**
   * Where the checks are admitted and run instead of this process's own queue and threads (which are
   * then not started): a worker process of the Node server passes its primary's, so that the bounds on
   * one client hold once for the whole server, not once in every worker.
   */
  checks?: PasswordChecks;
}

const DEFAULT_POLL_MS = 2000;
const DEFAULT_CACHE_MS = 60_000;
const DEFAULT_FAILURE_CACHE_MS = 30_000;
const DEFAULT_THREADS = Math.min(4, Math.max(1, availableParallelism() - 1));

export class HtpasswdUserDirectory implements UserDirectory {
  private readonly cache: VerificationCache;
  private readonly polling: PeriodicTask | undefined;
  private readonly workers: PasswordWorkers | undefined;
  /** The checks of this process and of its workers, when it has any (the Node server's primary). */
  readonly checks: PasswordChecks;
  private dummyHash: string;

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
    this.cache = new VerificationCache(
      options.clock,
      options.cacheMs ?? DEFAULT_CACHE_MS,
      options.failureCacheMs ?? DEFAULT_FAILURE_CACHE_MS,
    );
    const threads = options.checks ? 0 : (options.threads ?? DEFAULT_THREADS);
    this.workers = threads > 0 ? new PasswordWorkers(threads) : undefined;
    const run: PasswordCheckRunner = this.workers
      ? (password, hash) => (this.workers as PasswordWorkers).run(password, hash)
      : verifyPassword;
    this.checks =
      options.checks ??
      new PasswordCheckQueue(run, {
        running: Math.max(1, threads),
        waiting: options.maxWaiting ?? 64,
        perClient: options.perClient ?? 4,
      });
    this.dummyHash = dummyHashLike(users.values());
    options.logger.log('USERS_LOADED', { path, users: users.size, reload: false });
    const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    if (pollMs > 0) this.polling = runEvery('users poll', pollMs, () => this.poll(), options.logger);
  }

  /** Throws (rejects with) a W3C error with Retry-After when `client` or the grid has too many checks waiting. */
  verify(user: string, password: string, client = 'unknown'): Promise<boolean> {
    const hash = this.users.get(user);
    return this.cache.verify(user, password, async () => {
      // An unknown name is checked too, against a hash no password matches, so it takes as long.
      const ok = await this.checks.check(client, password, hash ?? this.dummyHash);
      return ok && hash !== undefined;
    });
  }

  /** Stops watching the file and the checking threads (a later check starts a thread again). */
  async close(): Promise<void> {
    this.polling?.stop();
    await this.workers?.close();
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
      this.dummyHash = dummyHashLike(this.users.values());
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
