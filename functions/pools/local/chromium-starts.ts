/**
 * How each local pool's Chromium is started (chromium-wrapper.ts), worked out once for every binary a pool
 * names: when the launcher is first told of the pools, or at the first session that needs it. A wrapper that
 * cannot be worked out keeps the configured binary (browsers start through it, as they would without this), so
 * a session never fails for it.
 */
import { asConfigured, type ChromiumStart } from './chromium-wrapper';

/** The start for `chromium`, or why the configured binary is kept though it could start faster. */
export type FindStart = (chromium: string) => Promise<ChromiumStart | string>;

export class ChromiumStarts {
  private readonly starts = new Map<string, Promise<ChromiumStart>>();

  constructor(
    private readonly find: FindStart,
    /** Hears why a binary is kept as configured though it is Debian's wrapper. */
    private readonly onKept: (chromium: string, reason: string) => void = () => undefined,
  ) {}

  /** The start of `chromium`, worked out at its first call; never rejects. */
  of(chromium: string): Promise<ChromiumStart> {
    let start = this.starts.get(chromium);
    if (!start) {
      start = this.find(chromium).then(
        (found) => (typeof found === 'string' ? this.kept(chromium, found) : found),
        (error: unknown) => this.kept(chromium, String(error)),
      );
      this.starts.set(chromium, start);
    }
    return start;
  }

  private kept(chromium: string, reason: string): ChromiumStart {
    this.onKept(chromium, reason);
    return asConfigured(chromium);
  }
}
