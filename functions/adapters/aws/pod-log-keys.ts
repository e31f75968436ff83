/**
 * Where an eks session's browser log is kept once its pod is gone: `logs/{session key}.log` in the recordings
 * bucket, beside the videos under videos/. The launcher's copy at the stop writes it, the router reads it, and
 * the CDK app grants and expires exactly this prefix: change one, change all.
 */

export const LOG_PREFIX = 'logs/';

/** The object key of a session's kept log. */
export function logKey(sessionKey: string): string {
  return `${LOG_PREFIX}${sessionKey}.log`;
}
