/**
 * Which ended sessions' videos in a bucket are due for deletion under `recording.keep: "failed"` (ecs and eks
 * pools, whose recorders upload to S3 themselves). The recorder uploads only after its task or pod was told
 * to stop, which the session's end does: the video lands in the bucket up to a minute after the end, so a
 * deletion at the end would find nothing and the upload would land after it. They are deleted once the upload
 * is over (UPLOAD_SETTLED_MS after the end), decided on the record as it is then, so a result given after the
 * session (the status page's PUT) in that minute or two still keeps a failed session's video. Each pass looks
 * back a few of its intervals: a pass that failed or was cut short leaves its videos to the next one.
 */
import type { PoolConfig } from './config';
import type { SessionRecord } from './ports';
import { videoNotKept } from './recording-keep';

/**
 * From a session's end until its video is surely in the bucket: docker-selenium's recorder stops within 65 s
 * of being told to (ffmpeg finishing the file, 30 s, then rclone's upload, 30 s, then its probe, 5 s:
 * Video/recorder.conf, uploader.conf stopwaitsecs), after which ECS (the task's stopTimeout, 70 s) or the
 * kubelet (the pod's grace, 60 s) kills it; the rest is room for the stop call itself.
 */
export const UPLOAD_SETTLED_MS = 2 * 60_000;
/** How many of the cleanup's intervals a pass looks back over, so one or two failed passes lose nothing. */
export const PASSES_LOOKED_BACK = 3;

/** A bucket recordings are kept in, and its Region. */
export interface VideoPlace {
  bucket: string;
  region: string;
}

/** A video to delete: where, whose (the session's key names the object) and why it is not kept. */
export interface UnkeptVideo extends VideoPlace {
  key: string;
  pool: string;
  why: string;
}

/** Where a pool's recorder uploads a session's video; undefined: not to a bucket (no recorder, another kind). */
export type VideoPlaceOf = (pool: PoolConfig) => VideoPlace | undefined;

/**
 * The videos to delete now among `records` (ended sessions with recordings): those recorded to a bucket,
 * not kept by their record (core/recording-keep.ts), whose end is past the upload and within the look-back.
 */
export function unkeptVideosDue(
  records: readonly SessionRecord[],
  poolOf: (name: string) => PoolConfig | undefined,
  placeOf: VideoPlaceOf,
  { now, intervalMs }: { now: number; intervalMs: number },
): UnkeptVideo[] {
  const newest = now - UPLOAD_SETTLED_MS;
  const oldest = newest - PASSES_LOOKED_BACK * intervalMs;
  return records.flatMap((record) => {
    const { endedAt, recording } = record;
    if (endedAt === undefined || endedAt > newest || endedAt <= oldest || !recording?.video) return [];
    const why = videoNotKept(recording.keep, record);
    const pool = poolOf(record.pool);
    const place = why && pool ? placeOf(pool) : undefined;
    return why && place ? [{ ...place, key: record.key, pool: record.pool, why }] : [];
  });
}

/** Deletes a session's video where its recorder uploaded it; idempotent (a missing one is no error). */
export interface VideoDeleter {
  delete(video: UnkeptVideo): Promise<void>;
}
