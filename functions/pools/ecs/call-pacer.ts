/**
 * Spacing of the calls one process makes to a rate-limited API (CloudWatch Logs' GetLogEvents): at most
 * `perSecond` calls start each second, evenly spaced, each caller told how long to wait for its turn; a
 * caller whose turn would come later than `maxWaitMs` is refused at once, so the callers waiting are bounded
 * too (perSecond × maxWaitMs / 1000 at most). A decision over the clock alone: the caller waits.
 */
export interface CallPacing {
  perSecond: number;
  maxWaitMs: number;
}

export class CallPacer {
  /** When the next call may start (epoch ms): turns already given run up to it. */
  private nextAt = 0;

  constructor(
    private readonly pacing: CallPacing,
    private readonly clock: { now(): number },
  ) {
    if (!(pacing.perSecond > 0)) throw new Error('a pacer needs a rate above 0 calls a second');
  }

  /** Takes the next turn: how many ms to wait for it, or undefined (refused) when that is past maxWaitMs. */
  turn(): number | undefined {
    const now = this.clock.now();
    const at = Math.max(now, this.nextAt);
    if (at - now > this.pacing.maxWaitMs) return undefined;
    this.nextAt = at + 1000 / this.pacing.perSecond;
    return at - now;
  }
}
