/**
 * Keeps an eks session's browser log when its pod is stopped: the pod, and the log the kubelet holds for it,
 * go with the delete, so first the browser container's log is read (as far as it was written, at most
 * POD_LOG_BYTES) and put as `logs/{session key}.log` in the pool's log bucket (keptLogBucket), where the router
 * serves it afterwards (eks-pod-logs.ts). Both calls share one bound (KEEP_LOG_MS); the copy never throws
 * and never holds the stop up past that bound: a failure is logged (BROWSER_LOG_NOT_KEPT) and the pod is
 * deleted all the same. S3 objects under logs/ expire with the recordings' retention (infra/recordings-bucket.ts).
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { abortAfter } from '../../core/abort-after';
import type { Logger } from '../../core/ports';
import { keptLogBucket, logKey } from '../selenium-node/pod-log-keys';
import type { EksPodApi } from './eks-pod-api';
import { CONTAINER } from './eks-pod-spec';
import type { DeployedEksPool } from './eks-pool-check';
import { POD_LOG_BYTES, readLimit, withinBound } from './pod-log-bound';

/**
 * The longest the read and the upload may take together before the pod is deleted regardless: a few
 * round trips of a log of at most 2 MiB, inside a DELETE that a client is waiting on.
 */
export const KEEP_LOG_MS = 5000;

export interface PodLogArchiveOptions {
  /** The S3 client of a bucket's Region, made when first asked. */
  s3Client: (region: string) => Promise<S3Client>;
  logger?: Logger;
  /** @default KEEP_LOG_MS */
  timeoutMs?: number;
  /** @default POD_LOG_BYTES */
  maxBytes?: number;
}

/** What one pod's copy is: which pod of which pool, and the session key it is kept under. */
export interface PodLogToKeep {
  api: EksPodApi;
  pool: DeployedEksPool;
  pod: string;
  sessionKey: string;
}

export class PodLogArchive {
  constructor(private readonly options: PodLogArchiveOptions) {}

  /** Copies the pod's browser log to its pool's bucket; nothing for a pool without one. Never throws. */
  async keep({ api, pool, pod, sessionKey }: PodLogToKeep): Promise<void> {
    const place = keptLogBucket(pool);
    if (!place) return;
    const { bucket, region } = place;
    const maxBytes = this.options.maxBytes ?? POD_LOG_BYTES;
    const bound = abortAfter(this.options.timeoutMs ?? KEEP_LOG_MS);
    try {
      const text = await api.log(
        pool.namespace,
        pod,
        { container: CONTAINER, limitBytes: readLimit(maxBytes) },
        bound.signal,
      );
      // No pod (already gone): nothing left to keep.
      if (text === undefined) return;
      const body = withinBound(text, maxBytes);
      const s3 = await this.options.s3Client(region);
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: logKey(sessionKey),
          Body: body,
          ContentType: 'text/plain; charset=utf-8',
        }),
        { abortSignal: bound.signal },
      );
    } catch (error) {
      this.options.logger?.log('BROWSER_LOG_NOT_KEPT', {
        pool: pool.name,
        handle: pod,
        session: sessionKey,
        error: bound.signal.aborted
          ? `not kept within ${this.options.timeoutMs ?? KEEP_LOG_MS} ms`
          : String(error),
      });
    } finally {
      bound.clear();
    }
  }
}
