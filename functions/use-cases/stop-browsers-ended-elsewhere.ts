/**
 * Browsers of this head whose sessions another head ended, on a store heads share. A container runs in the
 * engine of the head that started it (session-ownership.ts), so another head that ends its session (a DELETE
 * or the status page through it, its expiry sweep once the owner counts as headless) ends the record only.
 * The owner finds the record ended and stops the browser as that end asked: its reason, and its video kept or
 * not by the record, as endSession would have. Nothing is ended in the store here: it already is.
 */
import { type GridDeps, launcherOf, poolsNamed } from '../core/grid-deps';
import { videoNotKept } from '../core/recording-keep';

/** A browser this head runs for a session, by the session's key. */
export interface BrowserOfSession {
  key: string;
  handle: string;
}

/** Stops each browser whose session's record is ended; how many it stopped. */
export async function stopBrowsersEndedElsewhere(
  deps: GridDeps,
  browsers: readonly BrowserOfSession[],
): Promise<number> {
  let stopped = 0;
  for (const { key, handle } of browsers) {
    const record = await deps.sessions.get(key);
    // No record yet: its session is still being created here.
    if (record?.endedAt === undefined || record.handle !== handle) continue;
    const pool = poolsNamed(deps, record.pool)[0];
    const launcher = pool && launcherOf(deps, pool);
    if (!pool || !launcher) continue;
    const notKept = videoNotKept(record.recording?.keep, record);
    try {
      await launcher.stop(handle, {
        key,
        pool,
        reason: record.endReason ?? 'deleted',
        upstreamId: record.upstreamId,
        ...(notKept ? { videoNotKept: notKept } : {}),
      });
      stopped++;
    } catch (error) {
      deps.logger.log('BROWSER_STOP_FAILED', { session: key, pool: pool.name, handle, error: String(error) });
    }
  }
  return stopped;
}
