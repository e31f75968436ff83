/**
 * What gridgate's background Lambdas (the orphan cleanup, the Spot interruption handler) are built from:
 * the config file, the DynamoDB session store, JSON logs and EMF metrics; the only reader of their
 * environment. Called at module scope, so SDK clients are made once per Lambda environment. The config
 * is the router's (deployed-config.ts), without what only the router needs (the signing secret).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoSessionStore } from '../adapters/aws/dynamo-session-store';
import { EmfMetrics } from '../adapters/aws/emf-metrics';
import { JsonLogger } from '../adapters/node/json-logger';
import { type Config, ConfigError } from '../core/config';
import type { Logger, Metrics, SessionStore } from '../core/ports';
import { readDeployedConfig } from './deployed-config';

export interface JobWiring {
  config: Config;
  sessions: SessionStore;
  logger: Logger;
  metrics: Metrics;
  /** DRY_RUN=true: the cleanup decides and reports but changes nothing. */
  dryRun: boolean;
}

export function jobWiring(
  service: string,
  env: NodeJS.ProcessEnv = process.env,
  dynamodb: () => DynamoDBClient = () => new DynamoDBClient({}),
): JobWiring {
  const config = readDeployedConfig(env);
  if (config.store.kind !== 'dynamodb') throw new Error('readDeployedConfig let a memory store through');
  const logger = new JsonLogger();
  const sessions = new DynamoSessionStore({
    client: dynamodb(),
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
  };
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = env[name];
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new ConfigError(name, [`must be "true" or "false", not "${value}"`]);
}
