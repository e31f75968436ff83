/**
 * Wires the router Lambda: its config, signing secret, EMF metrics, DynamoDB store and recordings bucket,
 * given to the one wiring (grid-wiring.ts). Built once per Lambda environment.
 */
import type { Dispatcher } from 'undici';
import { HtpasswdUserDirectory } from '../adapters/htpasswd/htpasswd-user-directory';
import { JsonLogger } from '../adapters/node/json-logger';
import type { ArtifactSource } from '../core/artifact-ports';
import { isHubOrigin } from '../core/browser-network';
import type { GridDeps } from '../core/grid-deps';
import { systemClock } from '../core/ports';
import { createUpstreamAgent } from '../http/upstream-client';
import { type AwsAdapters, awsAdapters } from './aws-adapters';
import { readDeployedConfig, recordingsBucketOf } from './deployed-config';
import { gridDeps, poolKindsOf } from './grid-wiring';
import { signingSecret } from './signing-secret';

export interface AwsGrid {
  deps: GridDeps;
  /** The HTTP client for browsers, shared by the app and the ECS launcher's readiness checks. */
  agent: Dispatcher;
}

export async function awsGrid(
  env: NodeJS.ProcessEnv = process.env,
  adapters: AwsAdapters = awsAdapters,
): Promise<AwsGrid> {
  const logger = new JsonLogger();
  const config = readDeployedConfig(env);
  // Every Lambda environment must verify every other's session IDs: no per-process key here.
  const secret = await signingSecret(env, { fallback: 'none', read: adapters.secret });
  const agent = createUpstreamAgent((origin) => isHubOrigin(config.pools, origin));
  const metrics = await adapters.metrics();
  const bucket = recordingsBucketOf(env);
  const deps = gridDeps({
    config,
    secret,
    logger,
    metrics,
    sessions: await adapters.sessionStore((config.store as { table: string }).table, logger),
    agent,
    aws: adapters,
    // A Lambda environment's config never changes: only its pools' kinds get a launcher.
    kinds: poolKindsOf(config),
    // ecs sessions' videos in the recordings bucket.
    ...(bucket ? { ecsRecordings: lazyS3Recordings(bucket) } : {}),
    // A Lambda environment serves one request at a time: a check on its event loop holds up nobody.
    users: config.usersFile
      ? HtpasswdUserDirectory.open(config.usersFile, { clock: systemClock, logger, threads: 0 })
      : undefined,
    // Behind the CDK app's default front door: API Gateway REST, then the router Lambda.
    requestPricing: { frontDoor: 'rest', lambda: true },
  });
  return { deps, agent };
}

/** The recordings bucket's videos, the S3 SDK loaded with the first one asked for (not on every cold start). */
function lazyS3Recordings(bucket: string): ArtifactSource {
  let source: Promise<ArtifactSource> | undefined;
  return {
    async find(session, kind) {
      source ??= Promise.all([import('../adapters/aws/s3-recordings'), import('@aws-sdk/client-s3')]).then(
        ([{ S3Recordings }, { S3Client }]) => new S3Recordings(new S3Client({}), bucket),
      );
      return (await source).find(session, kind);
    },
  };
}
