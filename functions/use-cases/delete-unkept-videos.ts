/**
 * The cleanup's deletion of the videos ecs and eks sessions were not to keep (`recording.keep: "failed"`),
 * which their recorders upload to a bucket after the session's end (core/unkept-videos.ts says why the end
 * cannot delete them, and which are due). One UNKEPT_VIDEOS_DELETED line per pass that found any; a deletion
 * that fails is named in it and tried again by the next pass, as long as its look-back holds the session.
 */
import type { PoolConfig } from '../core/config';
import type { Clock, Logger, SessionStore } from '../core/ports';
import { unkeptVideosDue, type VideoDeleter, type VideoPlaceOf } from '../core/unkept-videos';

// The log line lists at most this many sessions; the counts are always whole.
const LOGGED_ITEMS = 100;

export interface UnkeptVideoDeps {
  sessions: Pick<SessionStore, 'recordedSessions'>;
  pools: Readonly<Record<string, PoolConfig>>;
  logger: Logger;
  clock: Clock;
}

export interface UnkeptVideoOptions {
  placeOf: VideoPlaceOf;
  deleter: VideoDeleter;
  /** The cleanup's schedule interval: how far back a pass looks is a few of them. */
  intervalMs: number;
  /** Decide and report only. */
  dryRun?: boolean;
  /** Epoch ms after which no deletion starts (the Lambda's own deadline): the rest waits for the next pass. */
  deadline?: number;
}

/** Deletes the videos due now; how many it deleted. */
export async function deleteUnkeptVideos(
  deps: UnkeptVideoDeps,
  { placeOf, deleter, intervalMs, dryRun = false, deadline }: UnkeptVideoOptions,
): Promise<number> {
  const due = unkeptVideosDue(await deps.sessions.recordedSessions(), (name) => deps.pools[name], placeOf, {
    now: deps.clock.now(),
    intervalMs,
  });
  if (due.length === 0) return 0;
  const deleted: string[] = [];
  const failed: { session: string; error: string }[] = [];
  for (const video of due) {
    if (deadline !== undefined && deps.clock.now() > deadline) break;
    try {
      if (!dryRun) await deleter.delete(video);
      deleted.push(video.key);
    } catch (error) {
      failed.push({ session: video.key, error: String(error) });
    }
  }
  deps.logger.log('UNKEPT_VIDEOS_DELETED', {
    dryRun,
    deleted: deleted.length,
    failed: failed.length,
    sessions: deleted.slice(0, LOGGED_ITEMS),
    ...(failed.length > 0 ? { failures: failed.slice(0, LOGGED_ITEMS) } : {}),
  });
  return dryRun ? 0 : deleted.length;
}
