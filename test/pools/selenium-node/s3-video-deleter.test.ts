/**
 * Deleting a session's video where its recorder uploaded it, with a real S3Client against the S3 fake that
 * speaks S3's REST protocol and refuses what S3 refuses (test/support/fake-s3.ts): the object under videos/
 * goes, a second deletion (the next cleanup pass) is no error as in S3, and a bucket that is not there is.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnkeptVideo } from '../../../functions/core/unkept-videos';
import { videoKey } from '../../../functions/pools/selenium-node/s3-recordings';
import { S3VideoDeleter } from '../../../functions/pools/selenium-node/s3-video-deleter';
import { FAKE_S3_CREDENTIALS, FAKE_S3_REGION, FakeS3 } from '../../support/fake-s3';

const BUCKET = 'gridgate-recordingsbucket-1a2b3c4d';
let s3: FakeS3;
let deleter: S3VideoDeleter;
const regionsAsked: string[] = [];

beforeAll(async () => {
  s3 = await FakeS3.start([BUCKET]);
  deleter = new S3VideoDeleter(async (region) => {
    regionsAsked.push(region);
    return new S3Client({
      region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: FAKE_S3_CREDENTIALS,
    });
  });
});
afterAll(() => s3?.close());

const unkept = (key: string, bucket = BUCKET): UnkeptVideo => ({
  bucket,
  region: FAKE_S3_REGION,
  key,
  pool: 'fargate',
  why: 'not kept: the test passed (recording.keep: failed)',
});

describe('S3VideoDeleter', () => {
  it('deletes the session’s video and nothing else, and deleting it again is no error', async () => {
    s3.put(BUCKET, videoKey('aaaa000011112222'), Buffer.from('passed video'));
    s3.put(BUCKET, videoKey('bbbb000011112222'), Buffer.from('failed video'));
    await deleter.delete(unkept('aaaa000011112222'));
    expect(s3.object(BUCKET, videoKey('aaaa000011112222'))).toBeUndefined();
    expect(s3.object(BUCKET, videoKey('bbbb000011112222'))?.body.toString()).toBe('failed video');
    await deleter.delete(unkept('aaaa000011112222'));
    expect(s3.calls.filter((call) => call.method === 'DELETE')).toEqual([
      { method: 'DELETE', bucket: BUCKET, key: 'videos/aaaa000011112222.mp4', auth: 'header', status: 204 },
      { method: 'DELETE', bucket: BUCKET, key: 'videos/aaaa000011112222.mp4', auth: 'header', status: 204 },
    ]);
    // One client for the Region, made when first asked.
    expect(regionsAsked).toEqual([FAKE_S3_REGION]);
  });

  it('fails for a bucket that is not there, as S3 does (404 NoSuchBucket)', async () => {
    await expect(deleter.delete(unkept('cccc000011112222', 'gridgate-no-such-bucket'))).rejects.toMatchObject(
      {
        name: 'NoSuchBucket',
      },
    );
  });
});
