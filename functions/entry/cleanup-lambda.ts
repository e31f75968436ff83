/**
 * The orphan cleanup Lambda (EventBridge schedule): one pass per tick over the fleets of the kinds the config
 * has pools of (aws-cleanup.ts), each kind's part made once per Lambda environment.
 */
import type { Context } from 'aws-lambda';
import { systemClock } from '../core/ports';
import { S3VideoDeleter } from '../pools/selenium-node/s3-video-deleter';
import { type CleanupReport, orphanCleanup } from './aws-cleanup';
import { jobWiring } from './aws-job-wiring';

// Room after the last StopTask to write the store, log the report and return before Lambda's timeout.
const FINISH_MS = 5000;

const { config, sessions, logger, metrics, dryRun, warm, recordings, aws } = jobWiring('cleanup');
const cleanup = await orphanCleanup({
  config,
  sessions,
  logger,
  metrics,
  clock: systemClock,
  aws,
  warm,
  ...(recordings ? { recordings } : {}),
  // Videos sessions were not to keep are deleted here, not at their end: core/unkept-videos.ts says why.
  videoDeleter: new S3VideoDeleter(),
});

/** A scheduled event, or `{"dryRun": true}` from a person invoking it by hand. */
export async function handler(
  event: { dryRun?: unknown } | undefined,
  context?: Context,
): Promise<CleanupReport> {
  const deadline = context ? Date.now() + context.getRemainingTimeInMillis() - FINISH_MS : undefined;
  return cleanup({ dryRun: dryRun || event?.dryRun === true, deadline });
}
