/**
 * ecs sessions' videos in S3: whether one is there (HeadObject, against a mock that refuses what S3
 * refuses), and the presigned redirect its owner gets, checked for its shape and expiry; presigning is
 * local computation, so nothing here calls AWS.
 */
import { HeadObjectCommand, NotFound, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { ArtifactSession } from '../../../functions/core/artifact-ports';
import { logKey } from '../../../functions/pools/selenium-node/pod-log-keys';
import {
  PRESIGNED_SECONDS,
  S3Recordings,
  videoKey,
} from '../../../functions/pools/selenium-node/s3-recordings';

const s3 = new S3Client({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
});
const mock = mockClient(s3);
afterEach(() => mock.reset());

const BUCKET = 'gridgate-recordingsbucket-1a2b3c';
const session: ArtifactSession = {
  key: '0011223344556677',
  user: 'alice',
  pool: 'chrome-spot',
  address: '10.0.1.5:4444',
  upstreamId: 'd1e2f3',
  handle: 'task-1',
};

/**
 * S3's HeadObject as the router meets it, refusing what S3 refuses (Amazon S3 API Reference): a bucket name
 * that breaks the naming rules ("Bucket naming rules": 3-63 lower-case letters, digits, "." and "-", starting
 * and ending with a letter or digit) and an object key over 1,024 bytes of UTF-8 ("Naming Amazon S3
 * objects"); a key that is not there is 404 NotFound (API_HeadObject: with s3:ListBucket; the router has none,
 * so S3 says 403 Forbidden instead).
 */
function headObjectLikeS3(stored: Set<string>, withListBucket: boolean) {
  mock.on(HeadObjectCommand).callsFake((input: { Bucket: string; Key: string }) => {
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(input.Bucket)) {
      throw new S3ServiceException({
        name: 'InvalidBucketName',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      });
    }
    if (Buffer.byteLength(input.Key) > 1024) {
      throw new S3ServiceException({
        name: 'KeyTooLongError',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      });
    }
    if (!stored.has(`${input.Bucket}/${input.Key}`)) {
      if (withListBucket) throw new NotFound({ message: 'Not Found', $metadata: { httpStatusCode: 404 } });
      throw new S3ServiceException({
        name: 'Forbidden',
        $fault: 'client',
        $metadata: { httpStatusCode: 403 },
      });
    }
    return { ContentLength: 1234, ContentType: 'video/mp4' };
  });
}

describe('S3Recordings', () => {
  it('redirects the owner to a presigned GET of videos/{key}.mp4, valid for five minutes', async () => {
    headObjectLikeS3(new Set([`${BUCKET}/${videoKey(session.key)}`]), false);
    const artifact = await new S3Recordings(s3, BUCKET).find(session, 'video');
    expect(artifact?.kind).toBe('redirect');
    const url = new URL((artifact as { location: string }).location);
    expect(url.origin).toBe(`https://${BUCKET}.s3.eu-west-1.amazonaws.com`);
    expect(url.pathname).toBe('/videos/0011223344556677.mp4');
    const query = Object.fromEntries(url.searchParams);
    expect(query).toMatchObject({
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Expires': String(PRESIGNED_SECONDS),
      'X-Amz-SignedHeaders': 'host',
      'response-content-type': 'video/mp4',
      'response-content-disposition': 'inline; filename="0011223344556677.mp4"',
    });
    expect(PRESIGNED_SECONDS).toBe(300);
    expect(query['X-Amz-Credential']).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
    expect(query['X-Amz-Signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(mock.commandCalls(HeadObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'videos/0011223344556677.mp4',
    });
  });

  it.each([
    ['403 (no s3:ListBucket, as the router has none)', false],
    ['404', true],
  ])('has no video when S3 answers %s', async (_, withListBucket) => {
    headObjectLikeS3(new Set(), withListBucket);
    expect(await new S3Recordings(s3, BUCKET).find(session, 'video')).toBeUndefined();
  });

  it('redirects to a presigned GET of logs/{key}.log, as plain text, for a log kept when a pod was stopped', async () => {
    headObjectLikeS3(new Set([`${BUCKET}/${logKey(session.key)}`]), false);
    const artifact = await new S3Recordings(s3, BUCKET).find(session, 'log');
    const url = new URL((artifact as { location: string }).location);
    expect(url.pathname).toBe('/logs/0011223344556677.log');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      'X-Amz-Expires': String(PRESIGNED_SECONDS),
      'response-content-type': 'text/plain; charset=utf-8',
      'response-content-disposition': 'inline; filename="0011223344556677.log"',
    });
  });

  it('keeps no screenshots there, and asks S3 nothing for them', async () => {
    headObjectLikeS3(new Set(), true);
    expect(await new S3Recordings(s3, BUCKET).find(session, 'log')).toBeUndefined();
    expect(await new S3Recordings(s3, BUCKET).find(session, 'screenshot')).toBeUndefined();
    expect(mock.commandCalls(HeadObjectCommand).map((call) => call.args[0].input.Key)).toEqual([
      'logs/0011223344556677.log',
    ]);
  });

  it('says the bucket did not answer when S3 refuses the request', async () => {
    headObjectLikeS3(new Set(), true);
    await expect(new S3Recordings(s3, 'Not_A_Bucket').find(session, 'video')).rejects.toMatchObject({
      code: 'unknown error',
      status: 502,
    });
  });
});
