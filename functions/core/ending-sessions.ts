/**
 * The session ends this process has under way (endSession, from the moment it starts to the freed slot):
 * a session is refused as ended as soon as its end begins, before its browser stops and its slot frees,
 * so a DELETE refused meanwhile waits for the end to be over. A client told its session is gone then
 * finds its slot free, as it does after its own DELETE.
 */
export class EndingSessions {
  // By session key: every end of that key under way, together (two callers may end one session at once).
  private readonly ends = new Map<string, Promise<unknown>>();

  /** Notes `end` until it settles; gives it back. */
  track<T>(key: string, end: Promise<T>): Promise<T> {
    // Never rejects: a failed end (the store's error) is over all the same.
    const all = Promise.allSettled([this.ends.get(key), end]);
    this.ends.set(key, all);
    const forget = () => {
      if (this.ends.get(key) === all) this.ends.delete(key);
    };
    all.then(forget, forget);
    return end;
  }

  /** Resolves once every end of the key under way now has settled (at once when there is none); never rejects. */
  async settled(key: string): Promise<void> {
    await this.ends.get(key);
  }

  get size(): number {
    return this.ends.size;
  }
}
