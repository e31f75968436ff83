/**
 * The status page's list of a cloud pool kind's ended sessions with recordings (ecs, eks), from the session
 * store: their videos are in a bucket and their logs in a log group, where listing them would cost a call per
 * session, so the list says what each session recorded as the store kept it (SessionRecord.recording, for its
 * recordings' retention), without sizes. Whose a session is comes from the same store, so an admin gets
 * anyone's recordings as long as they are kept, on any head sharing the store. The recordings themselves are
 * still found by the kind's own source, at the time they are asked for.
 */
import type { ArtifactSource, RecordedSession } from './artifact-ports';
import type { PoolConfig } from './config';
import { type GridDeps, poolsNamed } from './grid-deps';
import type { SessionRecord } from './ports';
import { videoNotKept } from './recording-keep';

/** Which of a recorded session's video and log its pool's kind keeps (a recorder uploads videos, …). */
export type KeptRecordings = (record: SessionRecord, pool: PoolConfig) => { video: boolean; log: boolean };

export function listedFromStore(
  source: ArtifactSource,
  deps: GridDeps,
  kind: PoolConfig['kind'],
  kept: KeptRecordings,
): ArtifactSource {
  // Sessions of other kinds' pools are listed by their own sources (a local pool's from its disk).
  const listed = (record: SessionRecord): RecordedSession | undefined => {
    const pool = poolsNamed(deps, record.pool)[0];
    if (pool?.kind !== kind || !record.recording || record.endedAt === undefined) return undefined;
    const { video, log } = kept(record, pool);
    // A video the session was not to keep (recording.keep: failed) is listed with why, as a local one is:
    // the cleanup deletes it from the bucket once its recorder has uploaded it (core/unkept-videos.ts).
    const notKept = video ? videoNotKept(record.recording.keep, record) : undefined;
    return video || log ? recordedSession(record, video && !notKept, log, notKept) : undefined;
  };
  return {
    find: (session, artifact, ask) => source.find(session, artifact, ask),
    async recorded(key) {
      const record = await deps.sessions.get(key);
      return record && listed(record);
    },
    async list() {
      return (await deps.sessions.recordedSessions()).flatMap((record) => listed(record) ?? []);
    },
  };
}

function recordedSession(
  record: SessionRecord,
  video: boolean,
  log: boolean,
  notKept: string | undefined,
): RecordedSession {
  const { key, user, pool, browserName, browserVersion, name, createdAt, endedAt, endReason } = record;
  return {
    key,
    user,
    pool,
    browserName,
    browserVersion,
    ...(name ? { name } : {}),
    createdAt,
    ...(endedAt !== undefined ? { endedAt } : {}),
    ...(endReason ? { endReason } : {}),
    // Named as the recorder uploads it and the bucket serves it: the session's key.
    ...(video ? { video: { format: 'mp4', fileName: `${key}.mp4` } } : {}),
    ...(log ? { log: { fileName: `${key}.log` } } : {}),
    ...(notKept ? { videoNotKept: notKept } : {}),
    ranAt: { address: record.address, handle: record.handle, upstreamId: record.upstreamId },
  };
}
