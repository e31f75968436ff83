import type { Dispatcher } from 'undici';
import packageJson from '../../package.json' with { type: 'json' };
import { HtpasswdUserDirectory } from '../adapters/htpasswd/htpasswd-user-directory';
import { HubArtifacts } from '../adapters/hub/hub-artifacts';
import { HubLauncher } from '../adapters/hub/hub-launcher';
import { JsonLogger } from '../adapters/node/json-logger';
import type { ArtifactSource } from '../core/artifact-ports';
import { isHubOrigin } from '../core/browser-network';
import { EndedSessions } from '../core/ended-sessions';
import { type GridDeps, sessionPool } from '../core/grid-deps';
import { systemClock } from '../core/ports';
import { SessionTokens } from '../core/session-token';
import { SlotQueue } from '../core/slot-queue';
import { warmTaskTable } from '../core/warm-tasks';
import { createUpstreamAgent } from '../http/upstream-client';
import { type AwsAdapters, awsAdapters, ecsWarmCount, onFirstUse } from './aws-adapters';
import { readDeployedConfig, recordingsBucketOf } from './deployed-config';
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
  const kinds = new Set(Object.values(config.pools).map((pool) => pool.kind));
  const launchers: GridDeps['launchers'] = {};
  if (kinds.has('hub')) launchers.hub = new HubLauncher();
  const table = (config.store as { table: string }).table;
  // Only pools with warm tasks make the launcher try a claim, so only they cost it the store client.
  const warmTable = warmTaskTable(config);
  if (kinds.has('ecs')) {
    // /status counts warm tasks in the table, so answering it never loads the ECS SDK.
    launchers.ecs = onFirstUse(
      () => adapters.ecsLauncher({ agent, logger, metrics, warmTable }),
      ecsWarmCount(adapters, warmTable),
    );
  }
  if (kinds.has('eks')) launchers.eks = onFirstUse(() => adapters.eksLauncher({ agent, logger, metrics }));
  const bucket = recordingsBucketOf(env);
  const deps: GridDeps = {
    config,
    launchers,
    // ecs sessions' videos in the recordings bucket; hub sessions' videos and logs from their hubs.
    artifacts: {
      ...(bucket ? { ecs: lazyS3Recordings(bucket) } : {}),
      ...(kinds.has('hub') ? { hub: new HubArtifacts((session) => sessionPool(deps, session), agent) } : {}),
    },
    sessions: await adapters.sessionStore(table, logger),
    queue: new SlotQueue(),
    ended: new EndedSessions(),
    // A Lambda environment serves one request at a time: a check on its event loop holds up nobody.
    users: config.usersFile
      ? HtpasswdUserDirectory.open(config.usersFile, { clock: systemClock, logger, threads: 0 })
      : undefined,
    tokens: new SessionTokens(secret),
    logger,
    metrics,
    // Behind the CDK app's default front door: API Gateway REST, then the router Lambda.
    requestPricing: { frontDoor: 'rest', lambda: true },
    clock: systemClock,
    version: packageJson.version,
    configLoadedAt: systemClock.now(),
  };
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
