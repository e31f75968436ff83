/**
 * One piece of work per key for callers that ask at once or shortly after one another (people and log
 * followers asking for the same session's log): callers arriving while it runs share it, and its result is
 * kept `keepMs` after it settles, when `shareable` says it may be; a result that may not be shared serves
 * only the caller that started it, and a failure is never kept. Entries last only `keepMs` past their end,
 * so how many there are is bounded by how fast work is started. Timers injected through the clock.
 */
interface Entry<T> {
  result: Promise<T>;
  /** When it settled with a shareable result; undefined while it runs. */
  settledAt?: number;
}

export class RecentResults<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly keepMs: number,
    private readonly clock: { now(): number },
  ) {}

  async get(key: string, work: () => Promise<T>, shareable: (result: T) => boolean): Promise<T> {
    this.prune();
    const entry = this.entries.get(key);
    if (entry) {
      const shared = await entry.result.then(
        (result) => (shareable(result) ? { result } : undefined),
        () => undefined,
      );
      if (shared) return shared.result;
    }
    return this.start(key, work, shareable);
  }

  private start(key: string, work: () => Promise<T>, shareable: (result: T) => boolean): Promise<T> {
    const entry: Entry<T> = { result: work() };
    this.entries.set(key, entry);
    entry.result.then(
      (result) => {
        if (this.entries.get(key) !== entry) return;
        if (shareable(result)) entry.settledAt = this.clock.now();
        else this.entries.delete(key);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.result;
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) {
      if (entry.settledAt !== undefined && now - entry.settledAt >= this.keepMs) this.entries.delete(key);
    }
  }
}
