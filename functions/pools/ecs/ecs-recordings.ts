/**
 * Where the router reads ecs sessions' recordings on AWS: videos in the recordings bucket (S3), browser
 * logs in the browsers' log group (CloudWatch Logs), each SDK loaded with the first recording asked for
 * rather than on every cold start (a Lambda's) or at every `npm start` (a head's). None where the stack
 * keeps neither. The router Lambda and the Node server's heads both read them through this.
 */
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { ArtifactSession, ArtifactSource } from '../../core/artifact-ports';
import type { PoolConfig } from '../../core/config';
import { parseDeployment } from '../../core/deployment';
import { madeOnFirstUse } from '../../core/made-on-first-use';
import type { KeptRecordings } from '../../core/recorded-in-store';
import type { VideoPlace, VideoPlaceOf } from '../../core/unkept-videos';
import { artifactsByKind } from '../selenium-node/artifacts-by-kind';

export interface EcsRecordingPlaces {
  /** The recordings bucket (GRIDGATE_DEPLOYMENT's recordingsBucket). */
  bucket?: string;
  /** The browsers' log group (GRIDGATE_DEPLOYMENT's browserLogGroup). */
  logGroup?: string;
}

/**
 * Where the stack keeps ecs sessions' recordings, from GRIDGATE_DEPLOYMENT's text: the bucket of their
 * videos, when some pool records, and the log group of their browsers' logs. The router Lambda and the
 * Node server's heads (service and Web Function front doors) are given the same text.
 */
export function ecsRecordingPlaces(deployment: string | undefined): EcsRecordingPlaces {
  if (!deployment) return {};
  const { recordingsBucket, browserLogGroup } = parseDeployment(deployment);
  return {
    ...(recordingsBucket ? { bucket: recordingsBucket } : {}),
    ...(browserLogGroup ? { logGroup: browserLogGroup } : {}),
  };
}

/** `poolOf`: the pool a session ran in, by its ID's claims. */
export function ecsRecordings(
  places: EcsRecordingPlaces,
  poolOf: (session: ArtifactSession) => PoolConfig | undefined,
  logsClient: () => Promise<CloudWatchLogsClient> = newLogsClient,
): ArtifactSource | undefined {
  const { bucket, logGroup } = places;
  const video = bucket
    ? loadedOnFirstUse(async () => {
        const [{ S3Recordings }, { S3Client }, { boundedRequests }] = await Promise.all([
          import('../selenium-node/s3-recordings'),
          import('@aws-sdk/client-s3'),
          import('../../adapters/aws/request-bounds'),
        ]);
        return new S3Recordings(new S3Client({ requestHandler: boundedRequests() }), bucket);
      })
    : undefined;
  const log = logGroup
    ? loadedOnFirstUse(async () => {
        const [{ CloudWatchBrowserLogs }, logs] = await Promise.all([
          import('./cloudwatch-browser-logs'),
          logsClient(),
        ]);
        return new CloudWatchBrowserLogs({ logs, group: logGroup, poolOf });
      })
    : undefined;
  if (!video && !log) return undefined;
  return artifactsByKind({ ...(video ? { video } : {}), ...(log ? { log } : {}) });
}

/**
 * What an ended ecs session that recorded something keeps, for the status page's list: a video where it
 * asked for one and its pool's tasks run the recorder, and its log always (every task's browser container
 * logs to the browsers' log group, which the stack makes with any ecs pool).
 */
export const ecsKept: KeptRecordings = (record, pool) => ({
  video: record.recording?.video === true && ecsRecordsVideo(pool),
  log: true,
});

/** An ecs pool records videos when its tasks run docker-selenium's recorder beside the browser. */
export function ecsRecordsVideo(pool: PoolConfig): boolean {
  return pool.kind === 'ecs' && pool.recorder !== undefined;
}

/** Where an ecs pool's recorder uploads: the stack's recordings bucket (`place`), for pools with a recorder. */
export function ecsVideoPlace(place: VideoPlace): VideoPlaceOf {
  return (pool) => (pool.kind === 'ecs' && pool.recorder !== undefined ? place : undefined);
}

/** The router's CloudWatch Logs client: one try per call, since the log reads pace their own retries. */
async function newLogsClient(): Promise<CloudWatchLogsClient> {
  const [{ CloudWatchLogsClient }, { boundedRequests }] = await Promise.all([
    import('@aws-sdk/client-cloudwatch-logs'),
    import('../../adapters/aws/request-bounds'),
  ]);
  return new CloudWatchLogsClient({ maxAttempts: 1, requestHandler: boundedRequests() });
}

/** A source made when first asked (madeOnFirstUse: a failed load is not kept). */
function loadedOnFirstUse(load: () => Promise<ArtifactSource>): ArtifactSource {
  const source = madeOnFirstUse(load);
  return { find: async (session, kind, ask) => (await source()).find(session, kind, ask) };
}
