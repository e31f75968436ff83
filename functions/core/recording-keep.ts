/**
 * Which ended sessions keep their video: `recording.keep` "all" (the default), or "failed", as Selenium Grid
 * 4.41's SE_UPLOAD_FAILURE_SESSION_ONLY: a session whose test said it failed, or one that ended the way a
 * failing test does (its idle timeout or maximum age ran out, its browser crashed, its platform took the
 * browser back, the grid shut down under it). Everything else, a passed test or one that said nothing and
 * ended by its own DELETE, has its video deleted at its end. Logs are kept as asked either way: they are
 * small, and say what happened when a failure was not reported.
 */
// No import of ports.ts, which imports this module's type through recording-wish.ts: an end is its reason.
import type { TestResult } from './test-marks';

export type KeepPolicy = 'all' | 'failed';
export const KEEP_POLICIES: readonly KeepPolicy[] = ['all', 'failed'];

// A session cut short: whatever the test would have said, it did not get to the end.
const FAILED_ENDINGS: ReadonlySet<string> = new Set([
  'idle timeout',
  'max age',
  'browser exited',
  'reclaimed',
  'server shutdown',
]);

/** Why the video of this ended session is not kept, as the status page says it; undefined: it is kept. */
export function videoNotKept(
  keep: KeepPolicy | undefined,
  ended: { result?: TestResult; endReason?: string },
): string | undefined {
  if (keep !== 'failed') return undefined;
  if (ended.result?.status === 'failed') return undefined;
  if (ended.endReason && FAILED_ENDINGS.has(ended.endReason)) return undefined;
  const why = ended.result?.status === 'passed' ? 'the test passed' : 'no failure was reported';
  return `not kept: ${why} (recording.keep: failed)`;
}
