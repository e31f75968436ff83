/** The memory session store, noting the most slots each pool and each user ever held at once: limits under races. */
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import type { SlotAnswer, SlotClaim } from '../../functions/core/ports';

export class WatchedSessionStore extends MemorySessionStore {
  readonly peakByPool: Record<string, number> = {};
  readonly peakByUser: Record<string, number> = {};

  override async acquire(key: string, claim: SlotClaim): Promise<SlotAnswer> {
    const answer = await super.acquire(key, claim);
    for (const [counts, peaks] of [
      [await this.inUse(), this.peakByPool],
      [await this.inUseByUser(), this.peakByUser],
    ] as const) {
      for (const [name, count] of Object.entries(counts)) peaks[name] = Math.max(peaks[name] ?? 0, count);
    }
    return answer;
  }
}
