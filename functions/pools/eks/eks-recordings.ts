/**
 * Where gridgate reads eks sessions' recordings. Videos: in the bucket their pool's recorder uploads to
 * (`recorder.bucket` and `region`: the stack's recordings bucket, laid onto the pool from GRIDGATE_DEPLOYMENT,
 * or one the config names), served by a presigned redirect as ecs sessions' are (pools/selenium-node/s3-recordings.ts).
 * Logs: the running pod's browser container log from the Kubernetes API, then the copy kept when the pod was
 * stopped in the pool's log bucket (`logBucket`, which the stack sets, else the recorder's; pools/eks/eks-pod-logs.ts).
 * The S3 SDK loads with the first recording asked for. A pool without a recorder has no videos, and one
 * without a log bucket its logs only while its sessions run.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { ArtifactSession, ArtifactSource } from '../../core/artifact-ports';
import type { EksPoolConfig, PoolConfig } from '../../core/config';
import { madeOnFirstUse, madeOnFirstUsePer } from '../../core/made-on-first-use';
import type { KeptRecordings } from '../../core/recorded-in-store';
import type { VideoPlaceOf } from '../../core/unkept-videos';
import { artifactsByKind } from '../selenium-node/artifacts-by-kind';
import { keptLogBucket } from '../selenium-node/pod-log-keys';
import type { EksPodApi } from './eks-pod-api';
import type { DeployedEksPool } from './eks-pool-check';

/** The pod API of an eks pool's cluster, for each way a pool authenticates (`auth`). */
export interface EksPodApisByAuth {
  /** EKS tokens signed with the process's AWS credentials (the platform's identity: eks-runtime.ts). */
  aws: () => Promise<(pool: DeployedEksPool) => EksPodApi>;
  /** A kubeconfig's credentials (the Node server's); none: such pools are not served here. */
  kubeconfig?: () => Promise<(pool: DeployedEksPool) => EksPodApi>;
}

export interface EksRecordingsOptions {
  /** One S3 client per Region, made when first asked. @default one with the SDK's default credentials */
  s3Client?: (region: string) => Promise<S3Client>;
  podApis: EksPodApisByAuth;
  /** What "now" is for sharing one log lookup among those asking at once. @default Date */
  clock?: { now(): number };
}

/** `poolOf`: the pool a session ran in, by its ID's claims. */
export function eksRecordings(
  poolOf: (session: ArtifactSession) => PoolConfig | undefined,
  { s3Client = newS3Client, podApis, clock }: EksRecordingsOptions,
): ArtifactSource {
  const recordingsIn = madeOnFirstUsePer(
    async ({ bucket, region }: { bucket: string; region: string }): Promise<ArtifactSource> => {
      const [{ S3Recordings }, s3] = await Promise.all([
        import('../selenium-node/s3-recordings'),
        s3Client(region),
      ]);
      return new S3Recordings(s3, bucket);
    },
    ({ bucket, region }) => `${region}/${bucket}`,
  );
  /** The S3 recordings of a bucket; undefined: none given (the pool keeps none there). */
  const bucketOf = (place: { bucket?: string; region?: string } | undefined) => {
    const { bucket, region } = place ?? {};
    return bucket && region ? recordingsIn({ bucket, region }) : undefined;
  };
  const eksPool = (session: ArtifactSession): EksPoolConfig | undefined => {
    const pool = poolOf(session);
    return pool?.kind === 'eks' ? pool : undefined;
  };
  const podLogs = madeOnFirstUse(async (): Promise<ArtifactSource> => {
    const { EksPodLogs } = await import('./eks-pod-logs');
    return new EksPodLogs({
      poolOf: eksPool,
      podApi: async (pool) => (await podApisOf(podApis, pool))(pool),
      kept: async (pool) => bucketOf(keptLogBucket(pool)),
      clock,
    });
  });
  return artifactsByKind({
    video: {
      async find(session, kind, ask) {
        const source = bucketOf(eksPool(session)?.recorder);
        return source && (await source).find(session, kind, ask);
      },
    },
    log: {
      async find(session, kind, ask) {
        if (!eksPool(session)) return undefined;
        return (await podLogs()).find(session, kind, ask);
      },
    },
  });
}

async function podApisOf(
  apis: EksPodApisByAuth,
  pool: DeployedEksPool,
): Promise<(pool: DeployedEksPool) => EksPodApi> {
  if (pool.auth !== 'kubeconfig') return apis.aws();
  if (!apis.kubeconfig) throw new Error(`pools.${pool.name}: a kubeconfig pool is not served here`);
  return apis.kubeconfig();
}

/**
 * What an ended eks session that recorded something keeps, for the status page's list: a video if it asked
 * for one and its pool's recorder uploads, and its log where the pool keeps logs (copied as logs/{key}.log
 * at every stop, pod-log-archive.ts); a pool that keeps none has no log past the pod.
 */
export const eksKept: KeptRecordings = (record, pool) => {
  if (pool.kind !== 'eks') return { video: false, log: false };
  const videos = eksVideoPlace(pool) !== undefined;
  return { video: videos && record.recording?.video === true, log: keptLogBucket(pool) !== undefined };
};

/** Where an eks pool's recorder uploads: the bucket and Region it is told (recorder-environment.ts). */
export const eksVideoPlace: VideoPlaceOf = (pool) => {
  if (pool.kind !== 'eks') return undefined;
  const { bucket, region } = pool.recorder ?? {};
  return bucket && region ? { bucket, region } : undefined;
};

/** The S3 client of a bucket's Region, with the SDK's default credentials (the router's or head's role). */
async function newS3Client(region: string): Promise<S3Client> {
  const [{ S3Client }, { boundedRequests }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('../../adapters/aws/request-bounds'),
  ]);
  return new S3Client({ region, requestHandler: boundedRequests() });
}
