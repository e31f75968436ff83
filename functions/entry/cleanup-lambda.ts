/** The orphan cleanup Lambda (EventBridge schedule): one pass over every ecs pool's cluster and eks pool's pods per tick. */
import { ECSClient } from '@aws-sdk/client-ecs';
import type { Context } from 'aws-lambda';
import { boundedRequests } from '../adapters/aws/request-bounds';
import { systemClock } from '../core/ports';
import { hasPodPools } from '../pools';
import { eksPodApis } from '../pools/eks/eks-pod-apis';
import { podLogKeeper } from '../pools/eks/pod-log-keeper';
import { S3VideoDeleter } from '../pools/selenium-node/s3-video-deleter';
import { type CleanupReport, runOrphanCleanup } from './aws-cleanup';
import { jobWiring } from './aws-job-wiring';

// Room after the last StopTask to write the store, log the report and return before Lambda's timeout.
const FINISH_MS = 5000;

const { config, sessions, logger, metrics, dryRun, warm, recordings } = jobWiring('cleanup');
// Bounded: a hung connection would otherwise hold the pass until Lambda's timeout ends it mid-way.
const ecs = new ECSClient({ requestHandler: boundedRequests() });
// EKS tokens are signed with the same credentials as the ECS client's (the Lambda role's).
// A session's pod the cleanup deletes (timed out, left behind) has its browser log kept first, as at a DELETE.
const pods = hasPodPools(config)
  ? {
      api: eksPodApis({ credentials: () => ecs.config.credentials(), region: await ecs.config.region() }),
      keepLog: podLogKeeper(logger),
    }
  : undefined;
// Videos sessions were not to keep are deleted here, not at their end: core/unkept-videos.ts says why.
const videos = { deleter: new S3VideoDeleter(), ...(recordings ? { recordings } : {}) };

/** A scheduled event, or `{"dryRun": true}` from a person invoking it by hand. */
export async function handler(
  event: { dryRun?: unknown } | undefined,
  context?: Context,
): Promise<CleanupReport> {
  const deadline = context ? Date.now() + context.getRemainingTimeInMillis() - FINISH_MS : undefined;
  return runOrphanCleanup(
    { ecs, pods, sessions, config, logger, metrics, clock: systemClock, warm, videos },
    { dryRun: dryRun || event?.dryRun === true, deadline },
  );
}
