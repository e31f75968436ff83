/**
 * How an eks launcher keeps a pod's browser log before it deletes the pod (pools/eks/pod-log-archive.ts):
 * the S3 SDK and the archive load with the first copy of a pool that has a bucket, never on a cold start and
 * never for pools without one; one S3 client per Region for the process's life. Never throws: the stop
 * that calls it deletes the pod whatever happens here.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { madeOnFirstUsePer } from '../../core/made-on-first-use';
import type { Logger } from '../../core/ports';
import { keptLogBucket } from '../selenium-node/pod-log-keys';
import type { PodLogArchive, PodLogToKeep } from './pod-log-archive';

export type KeepPodLog = (toKeep: PodLogToKeep) => Promise<void>;

/** `s3Client`: the client of a bucket's Region. @default one per Region with the SDK's default credentials */
export function podLogKeeper(
  logger: Logger,
  s3Client: (region: string) => Promise<S3Client> = regionalS3Clients(),
): KeepPodLog {
  let archive: Promise<PodLogArchive> | undefined;
  return async (toKeep) => {
    if (!keptLogBucket(toKeep.pool)) return;
    try {
      archive ??= import('./pod-log-archive').then(
        ({ PodLogArchive }) => new PodLogArchive({ s3Client, logger }),
      );
      await (await archive).keep(toKeep);
    } catch (error) {
      // The module did not load: the next stop tries again.
      archive = undefined;
      logger.log('BROWSER_LOG_NOT_KEPT', {
        pool: toKeep.pool.name,
        handle: toKeep.pod,
        session: toKeep.sessionKey,
        error: String(error),
      });
    }
  };
}

/** One S3 client per Region, made when first asked, with the SDK's default credentials (the role's). */
export function regionalS3Clients(): (region: string) => Promise<S3Client> {
  return madeOnFirstUsePer(async (region: string) => {
    const [{ S3Client }, { boundedRequests }] = await Promise.all([
      import('@aws-sdk/client-s3'),
      import('../../adapters/aws/request-bounds'),
    ]);
    return new S3Client({ region, requestHandler: boundedRequests() });
  });
}
