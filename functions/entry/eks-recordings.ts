/**
 * Where gridgate reads eks sessions' videos: in the bucket their pool's recorder uploads to (`recorder.bucket`
 * and `region`: the stack's recordings bucket, laid onto the pool from GRIDGATE_DEPLOYMENT, or one the config
 * names), served by a presigned redirect as ecs sessions' are (adapters/aws/s3-recordings.ts). The S3 SDK
 * loads with the first video asked for. A pool without a recorder has no videos, and gridgate reads no log of
 * a pod: neither asks S3 anything.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { ArtifactSession, ArtifactSource } from '../core/artifact-ports';
import type { PoolConfig } from '../core/config';

/** `poolOf`: the pool a session ran in, by its ID's claims; `s3Client`: one per Region, made when first asked. */
export function eksRecordings(
  poolOf: (session: ArtifactSession) => PoolConfig | undefined,
  s3Client: (region: string) => Promise<S3Client> = newS3Client,
): ArtifactSource {
  const buckets = new Map<string, Promise<ArtifactSource>>();
  const bucketSource = (bucket: string, region: string): Promise<ArtifactSource> => {
    const where = `${region}/${bucket}`;
    let source = buckets.get(where);
    if (!source) {
      source = Promise.all([import('../adapters/aws/s3-recordings'), s3Client(region)]).then(
        ([{ S3Recordings }, s3]) => new S3Recordings(s3, bucket),
        (error: unknown) => {
          // A failed load is not kept: the next request tries again.
          buckets.delete(where);
          throw error;
        },
      );
      buckets.set(where, source);
    }
    return source;
  };
  return {
    async find(session, kind, ask) {
      const pool = poolOf(session);
      const recorder = pool?.kind === 'eks' ? pool.recorder : undefined;
      if (kind !== 'video' || !recorder?.bucket || !recorder.region) return undefined;
      return (await bucketSource(recorder.bucket, recorder.region)).find(session, kind, ask);
    },
  };
}

/** The S3 client of a bucket's Region, with the SDK's default credentials (the router's or head's role). */
async function newS3Client(region: string): Promise<S3Client> {
  const { S3Client } = await import('@aws-sdk/client-s3');
  return new S3Client({ region });
}
