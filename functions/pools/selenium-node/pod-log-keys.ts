/**
 * Where an eks session's browser log is kept once its pod is gone: `logs/{session key}.log` in the pool's log
 * bucket (the recordings bucket, beside the videos under videos/). The copy at the stop writes it, the router
 * reads it, and the CDK app grants and expires exactly this prefix: change one, change all.
 */
import type { EksPoolConfig } from '../../core/config';

export const LOG_PREFIX = 'logs/';

/** The object key of a session's kept log. */
export function logKey(sessionKey: string): string {
  return `${LOG_PREFIX}${sessionKey}.log`;
}

/** The bucket a pool's ended sessions' logs are kept in: its `logBucket`, else its recorder's; none: not kept. */
export function keptLogBucket(pool: EksPoolConfig): { bucket: string; region: string } | undefined {
  if (pool.logBucket) return pool.logBucket;
  const { bucket, region } = pool.recorder ?? {};
  return bucket && region ? { bucket, region } : undefined;
}
