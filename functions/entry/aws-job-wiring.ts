/**
 * What gridgate's background Lambdas (the orphan cleanup, the Spot interruption handler) are built from:
 * the config file, the DynamoDB session store, JSON logs and EMF metrics; the only reader of their
 * environment. Called at module scope, so SDK clients are made once per Lambda environment. The config
 * is the router's (deployed-config.ts), without what only the router needs (the signing secret).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { newDynamoClient } from '../adapters/aws/dynamo-client';
import { DynamoSessionStore } from '../adapters/aws/dynamo-session-store';
import { DynamoSessionStarts } from '../adapters/aws/dynamo-warm-demand';
import { DynamoWarmTasks } from '../adapters/aws/dynamo-warm-tasks';
import { EmfMetrics } from '../adapters/aws/emf-metrics';
import { JsonLogger } from '../adapters/stdout/json-logger';
import { type Config, ConfigError } from '../core/config';
import { parseDeployment } from '../core/deployment';
import { parseDuration } from '../core/duration';
import type { Logger, Metrics, SessionStore } from '../core/ports';
import type { VideoPlace } from '../core/unkept-videos';
import type { WarmPoolDeps } from '../core/warm-demand';
import type { AwsPlatform } from '../pools/pool-kind';
import { readDeployedConfig } from './deployed-config';

export interface JobWiring {
  config: Config;
  sessions: SessionStore;
  logger: Logger;
  metrics: Metrics;
  /** DRY_RUN=true: the cleanup decides and reports but changes nothing. */
  dryRun: boolean;
  /** The warm pools' store and demand, with the cleanup's schedule interval (CLEANUP_INTERVAL). */
  warm: WarmPoolDeps;
  /** The stack's recordings bucket and its Region (GRIDGATE_DEPLOYMENT), where ecs pools' videos go. */
  recordings?: VideoPlace;
  /** The function's AWS credentials and Region (the role's), which eks pools' EKS tokens are signed with. */
  aws: Pick<AwsPlatform, 'identity'>;
}

export function jobWiring(
  service: string,
  env: NodeJS.ProcessEnv = process.env,
  dynamodb: () => DynamoDBClient = () => newDynamoClient(),
): JobWiring {
  const config = readDeployedConfig(env);
  if (config.store.kind !== 'dynamodb') throw new Error('readDeployedConfig let a memory store through');
  const logger = new JsonLogger();
  const client = dynamodb();
  const sessions = new DynamoSessionStore({
    client,
    table: config.store.table,
    onError: (error, { operation, key }) =>
      logger.log('UPSTREAM_ERROR', { store: 'dynamodb', operation, session: key, error: error.message }),
  });
  return {
    config,
    sessions,
    logger,
    metrics: new EmfMetrics({ service }),
    dryRun: flag(env, 'DRY_RUN'),
    warm: {
      warm: new DynamoWarmTasks({ client, table: config.store.table }),
      starts: new DynamoSessionStarts(client, config.store.table),
      intervalMs: interval(env, 'CLEANUP_INTERVAL'),
    },
    // The DynamoDB client's credential chain, refreshed as it expires: the one every SDK client here uses.
    aws: {
      identity: async () => ({
        credentials: () => client.config.credentials(),
        region: await client.config.region(),
      }),
    },
    ...recordingsOf(env.GRIDGATE_DEPLOYMENT),
  };
}

function recordingsOf(deployment: string | undefined): { recordings?: VideoPlace } {
  if (!deployment) return {};
  const { recordingsBucket: bucket, region } = parseDeployment(deployment);
  return bucket && region ? { recordings: { bucket, region } } : {};
}

/** The cleanup's schedule as a duration ("1m"), which infra/orphan-cleanup.ts sets; undefined: the default. */
function interval(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0)
    throw new ConfigError(name, [`must be a duration such as "1m", not "${value}"`]);
  return ms;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = env[name];
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new ConfigError(name, [`must be "true" or "false", not "${value}"`]);
}
