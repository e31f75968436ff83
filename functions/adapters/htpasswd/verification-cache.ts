/**
 * Remembers successful password checks for a short while: a bcrypt check costs ~100 ms by design, and
 * a WebDriver client sends thousands of commands with the same credentials.
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

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
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
    // Only successes are kept: a failure is forgotten as soon as it is known.
    const forgetFailure = (ok: boolean) => {
      if (!ok && this.entries.get(key) === entry) this.entries.delete(key);
    };
    entry.result.then(forgetFailure, () => forgetFailure(false));
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
