/**
 * Which videos in a bucket the cleanup deletes under recording.keep "failed" (core/unkept-videos.ts), and the
 * pass that deletes them (use-cases/delete-unkept-videos.ts): only videos recorded to a bucket and not kept by
 * their record as it is then, only once the recorder's upload is over, within a few passes' look-back.
 */
import { describe, expect, it } from 'vitest';
import type { PoolConfig } from '../../functions/core/config';
import type { SessionRecord } from '../../functions/core/ports';
import {
  PASSES_LOOKED_BACK,
  type UnkeptVideo,
  UPLOAD_SETTLED_MS,
  unkeptVideosDue,
} from '../../functions/core/unkept-videos';
import { ecsVideoPlace } from '../../functions/pools/ecs/ecs-recordings';
import { eksVideoPlace } from '../../functions/pools/eks/eks-recordings';
import { deleteUnkeptVideos } from '../../functions/use-cases/delete-unkept-videos';
import { sampleRecord, T0 } from '../contract/store-samples';
import { CollectingLogger, FixedClock } from '../support/fakes';
import { ecsPool, eksPool, localPool } from '../support/one-pool-config';

const MINUTE = 60_000;
const BUCKET = { bucket: 'gridgate-recordingsbucket-1a2b3c4d', region: 'eu-west-1' };
const ecsNetwork = {
  cluster: 'gridgate-browsers',
  taskDefinition: 'gridgate-chrome:7',
  subnets: ['subnet-a'],
  securityGroups: ['sg-browsers'],
  networks: ['10.0.0.0/16'],
};
const POOLS: Record<string, PoolConfig> = {
  fargate: ecsPool({ ...ecsNetwork, recorder: { image: 'selenium/video:ffmpeg-7.1' } }),
  quiet: { ...ecsPool(ecsNetwork), name: 'quiet' },
  pods: eksPool({
    cluster: 'browsers',
    namespace: 'grid',
    endpoint: 'https://kubernetes.invalid',
    networks: ['10.1.0.0/16'],
    recorder: { image: 'selenium/video:ffmpeg-7.1', bucket: 'team-videos', region: 'us-west-2' },
  }),
  local: localPool(),
};
const placeOf = (pool: PoolConfig) => ecsVideoPlace(BUCKET)(pool) ?? eksVideoPlace(pool);
const NOW = T0 + 60 * MINUTE;

/** A session of `pool` that recorded a video under keep "failed", ended by its DELETE `ago` ms before NOW. */
function ended(key: string, ago: number, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return sampleRecord(key, {
    pool: 'fargate',
    endedAt: NOW - ago,
    endReason: 'deleted',
    recording: { video: true, log: true, retentionMs: 24 * 60 * MINUTE, keep: 'failed' },
    ...overrides,
  });
}

const due = (records: SessionRecord[]) =>
  unkeptVideosDue(records, (name) => POOLS[name], placeOf, { now: NOW, intervalMs: MINUTE }).map(
    (video) => video.key,
  );

describe('unkeptVideosDue', () => {
  it('takes a passed or silent session’s video once its upload is over, with where it is and why', () => {
    const passed = ended('passed', 3 * MINUTE, { result: { status: 'passed' } });
    expect(
      unkeptVideosDue([passed], (name) => POOLS[name], placeOf, { now: NOW, intervalMs: MINUTE }),
    ).toEqual([
      {
        ...BUCKET,
        key: 'passed',
        pool: 'fargate',
        why: 'not kept: the test passed (recording.keep: failed)',
      },
    ] satisfies UnkeptVideo[]);
    expect(due([ended('silent', 3 * MINUTE)])).toEqual(['silent']);
  });

  it('leaves a video whose recorder may still be uploading, and one past the look-back', () => {
    expect(due([ended('uploading', UPLOAD_SETTLED_MS - 1)])).toEqual([]);
    expect(due([ended('settled', UPLOAD_SETTLED_MS)])).toEqual(['settled']);
    const lookBack = UPLOAD_SETTLED_MS + PASSES_LOOKED_BACK * MINUTE;
    expect(due([ended('last chance', lookBack - 1), ended('gone by', lookBack)])).toEqual(['last chance']);
  });

  it('keeps failed sessions’ videos, those cut short, and every video under keep "all"', () => {
    expect(
      due([
        ended('failed', 3 * MINUTE, { result: { status: 'failed', reason: 'no such element' } }),
        ended('idle', 3 * MINUTE, { endReason: 'idle timeout' }),
        ended('reclaimed', 3 * MINUTE, { endReason: 'reclaimed' }),
        ended('all', 3 * MINUTE, { recording: { video: true, log: true, retentionMs: MINUTE } }),
      ]),
    ).toEqual([]);
  });

  it('deletes only where a recorder uploads: an eks pool’s own bucket, never a pool without one', () => {
    const pods = ended('pods', 3 * MINUTE, { pool: 'pods' });
    expect(
      unkeptVideosDue([pods], (name) => POOLS[name], placeOf, { now: NOW, intervalMs: MINUTE }),
    ).toMatchObject([{ bucket: 'team-videos', region: 'us-west-2', key: 'pods' }]);
    expect(
      due([
        ended('quiet', 3 * MINUTE, { pool: 'quiet' }),
        ended('local', 3 * MINUTE, { pool: 'local' }),
        ended('gone pool', 3 * MINUTE, { pool: 'removed-since' }),
        ended('no video', 3 * MINUTE, {
          recording: { video: false, log: true, retentionMs: MINUTE, keep: 'failed' },
        }),
        { ...ended('running', 3 * MINUTE), endedAt: undefined },
      ]),
    ).toEqual([]);
  });
});

describe('deleteUnkeptVideos', () => {
  const records = [
    ended('passed', 3 * MINUTE, { result: { status: 'passed' } }),
    ended('failed', 3 * MINUTE, { result: { status: 'failed' } }),
    ended('refused', 4 * MINUTE),
  ];
  const deps = (logger: CollectingLogger) => ({
    sessions: { recordedSessions: async () => records },
    pools: POOLS,
    logger,
    clock: new FixedClock(NOW),
  });

  it('deletes each video due, reports the pass in one line, and names a deletion that failed', async () => {
    const logger = new CollectingLogger();
    const asked: string[] = [];
    const deleted = await deleteUnkeptVideos(deps(logger), {
      placeOf,
      intervalMs: MINUTE,
      deleter: {
        async delete(video) {
          asked.push(video.key);
          if (video.key === 'refused') throw new Error('AccessDenied');
        },
      },
    });
    expect(asked).toEqual(['passed', 'refused']);
    expect(deleted).toBe(1);
    expect(logger.lines).toEqual([
      {
        event: 'UNKEPT_VIDEOS_DELETED',
        fields: {
          dryRun: false,
          deleted: 1,
          failed: 1,
          sessions: ['passed'],
          failures: [{ session: 'refused', error: 'Error: AccessDenied' }],
        },
      },
    ]);
  });

  it('deletes nothing on a dry run, and logs nothing when nothing is due', async () => {
    const logger = new CollectingLogger();
    const refuse = { delete: async () => expect.unreachable('a dry run deletes nothing') };
    expect(
      await deleteUnkeptVideos(deps(logger), { placeOf, intervalMs: MINUTE, deleter: refuse, dryRun: true }),
    ).toBe(0);
    expect(logger.lines[0]?.fields).toMatchObject({ dryRun: true, sessions: ['passed', 'refused'] });
    const quiet = new CollectingLogger();
    const none = { ...deps(quiet), sessions: { recordedSessions: async () => [] } };
    expect(await deleteUnkeptVideos(none, { placeOf, intervalMs: MINUTE, deleter: refuse })).toBe(0);
    expect(quiet.lines).toEqual([]);
  });
});
