/**
 * Remembers password checks for a short while: a bcrypt check costs ~100 ms by design, a WebDriver
 * client sends thousands of commands with the same credentials, and a client that sends the same wrong
 * password again and again (a misconfigured job, a flood) must not cost a check each time.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../core/ports';

interface Entry {
  expiresAt: number;
  result: Promise<boolean>;
}

const PRUNE_ABOVE = 1024;

export class VerificationCache {
  private readonly entries = new Map<string, Entry>();

  /** `ttlMs`: how long a success is remembered; `failureTtlMs`: how long a wrong password is (0: not at all). */
  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly failureTtlMs = 0,
  ) {}

  /**
   * The answer for these credentials: remembered, already being computed (concurrent requests share
   * one check), or computed now by `check`.
   */
  verify(user: string, password: string, check: () => Promise<boolean>): Promise<boolean> {
    // Keyed by a digest, so no password stays in memory in clear text; JSON keeps the pair unambiguous.
    const key = createHash('sha256')
      .update(JSON.stringify([user, password]))
      .digest('base64');
    const now = this.clock.now();
    const known = this.entries.get(key);
    if (known && known.expiresAt > now) return known.result;
    if (this.entries.size >= PRUNE_ABOVE) this.prune(now);
    const entry: Entry = { expiresAt: now + this.ttlMs, result: check() };
    this.entries.set(key, entry);
    const settle = (ok: boolean | undefined) => {
      if (ok || this.entries.get(key) !== entry) return;
      // A wrong password is remembered for failureTtlMs from when it was known; a check that could not
      // answer (a refused or failed check) is forgotten at once, so the next try is checked again.
      if (ok === false && this.failureTtlMs > 0) entry.expiresAt = this.clock.now() + this.failureTtlMs;
      else this.entries.delete(key);
    };
    entry.result.then(settle, () => settle(undefined));
    return entry.result;
  }

  /** Forgets everything, e.g. when the users file changed. */
  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private prune(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) this.entries.delete(key);
    }
  }
}
