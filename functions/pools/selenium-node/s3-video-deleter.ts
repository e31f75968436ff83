/**
 * Deletes ecs and eks sessions' videos where their recorders uploaded them (`videos/{session key}.mp4`,
 * s3-recordings.ts), with one S3 client per Region made when first asked. DeleteObject on a key that is not
 * there answers 204 as for one that is (Amazon S3 API Reference, DeleteObject), so a repeated deletion is
 * no error; any other failure is thrown for the caller to report and try again.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { madeOnFirstUsePer } from '../../core/made-on-first-use';
import type { UnkeptVideo, VideoDeleter } from '../../core/unkept-videos';
import { videoKey } from './s3-recordings';

export class S3VideoDeleter implements VideoDeleter {
  private readonly clientIn: (region: string) => Promise<S3Client>;

  /** `s3Client`: the client of a Region. @default one with the SDK's default credentials (the cleanup's role) */
  constructor(s3Client: (region: string) => Promise<S3Client> = newS3Client) {
    this.clientIn = madeOnFirstUsePer(s3Client);
  }

  async delete({ bucket, region, key }: UnkeptVideo): Promise<void> {
    const [{ DeleteObjectCommand }, s3] = await Promise.all([
      import('@aws-sdk/client-s3'),
      this.clientIn(region),
    ]);
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: videoKey(key) }));
  }
}

async function newS3Client(region: string): Promise<S3Client> {
  const [{ S3Client }, { boundedRequests }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('../../adapters/aws/request-bounds'),
  ]);
  return new S3Client({ region, requestHandler: boundedRequests() });
}
