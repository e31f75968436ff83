/**
 * What the router Lambda is built from on AWS: the bundled config file (GRIDGATE_CONFIG), the signing
 * secret (GRIDGATE_SECRET), the DynamoDB session store, the ECS launcher for ecs pools and the hub
 * launcher for hub pools, JSON logs and EMF metrics. The only reader of the router Lambda's
 * environment.
 */
import { dirname, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Dispatcher } from 'undici';
import packageJson from '../../package.json' with { type: 'json' };
import { DynamoSessionStore } from '../adapters/aws/dynamo-session-store';
import { EmfMetrics } from '../adapters/aws/emf-metrics';
import { HtpasswdUserDirectory } from '../adapters/htpasswd/htpasswd-user-directory';
import { HubLauncher } from '../adapters/hub/hub-launcher';
import { JsonLogger } from '../adapters/node/json-logger';
import { type Config, ConfigError, parseConfig } from '../core/config';
import type { GridDeps } from '../core/grid-deps';
import { type Launcher, type Logger, type Metrics, type SessionStore, systemClock } from '../core/ports';
import { SessionTokens } from '../core/session-token';
import { SlotQueue } from '../core/slot-queue';
import { createUpstreamAgent } from '../http/upstream-client';
import { readConfigFile } from './config-file';

/** The adapters that talk to AWS, replaceable so tests (and other wiring) can give their own. */
export interface AwsAdapters {
  sessionStore(table: string, logger: Logger): SessionStore;
  ecsLauncher(context: { agent: Dispatcher; logger: Logger; metrics: Metrics }): Promise<Launcher>;
  metrics(): Metrics;
}

// awsGrid() runs once per Lambda environment (the entry calls it at module scope), so each SDK
// client below is made once per environment.
export const awsAdapters: AwsAdapters = {
  sessionStore: (table, logger) =>
    new DynamoSessionStore({
      client: new DynamoDBClient({}),
      table,
      onError: (error, { operation, key }) =>
        logger.log('UPSTREAM_ERROR', { store: 'dynamodb', operation, session: key, error: error.message }),
    }),
  // Loaded with the first new session that needs it: most invocations are commands, which never need
  // ECS, and evaluating the SDK is a large part of a cold start (bench/README.md, router Lambda).
  ecsLauncher: async ({ agent, logger, metrics }) => {
    const [{ ECSClient }, { EcsLauncher }] = await Promise.all([
      import('@aws-sdk/client-ecs'),
      import('../adapters/aws/ecs-launcher'),
    ]);
    return new EcsLauncher({ ecs: new ECSClient({}), agent, logger, metrics });
  },
  metrics: () => new EmfMetrics({ service: 'router' }),
};

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
  const path = env.GRIDGATE_CONFIG;
  if (!path)
    throw new ConfigError('GRIDGATE_CONFIG', ['must name the config file bundled with the function']);
  const config = routerConfig(path);
  const secret = await signingSecret(env);
  const agent = createUpstreamAgent();
  const metrics = adapters.metrics();
  const kinds = new Set(Object.values(config.pools).map((pool) => pool.kind));
  const launchers: GridDeps['launchers'] = {};
  if (kinds.has('hub')) launchers.hub = new HubLauncher();
  if (kinds.has('ecs')) launchers.ecs = onFirstUse(() => adapters.ecsLauncher({ agent, logger, metrics }));
  const table = (config.store as { table: string }).table;
  const deps: GridDeps = {
    config,
    launchers,
    sessions: adapters.sessionStore(table, logger),
    queue: new SlotQueue(),
    users: config.usersFile
      ? HtpasswdUserDirectory.open(config.usersFile, { clock: systemClock, logger })
      : undefined,
    tokens: new SessionTokens(secret),
    logger,
    metrics,
    clock: systemClock,
    version: packageJson.version,
    configLoadedAt: systemClock.now(),
  };
  return { deps, agent };
}

/** The config, checked for what a Lambda can serve: no local browsers, quotas shared through DynamoDB. */
function routerConfig(path: string): Config {
  // No local pools run on AWS, so the built-in catalog's Chromium version is never needed.
  const parsed = parseConfig(readConfigFile(path), { localBrowserVersion: 'stable' }, path);
  const problems: string[] = [];
  for (const pool of Object.values(parsed.pools)) {
    if (pool.kind === 'local')
      problems.push(`pools.${pool.name}: local pools cannot run in Lambda (no Chromium there)`);
  }
  if (parsed.store.kind !== 'dynamodb') {
    problems.push('store: Lambda environments share quotas only through "kind": "dynamodb"');
  }
  if (problems.length > 0) throw new ConfigError(path, problems);
  // A relative usersFile is bundled next to the config file.
  return parsed.usersFile ? { ...parsed, usersFile: resolve(dirname(path), parsed.usersFile) } : parsed;
}

/**
 * Session IDs must verify in every Lambda environment, so there is no random per-process key here.
 * GRIDGATE_SECRET_ARN (a Secrets Manager secret) is not read yet: @aws-sdk/client-secrets-manager is
 * not a dependency. When it is, read the secret here, once per environment.
 */
async function signingSecret(env: NodeJS.ProcessEnv): Promise<Buffer> {
  const secret = env.GRIDGATE_SECRET;
  if (secret === undefined || secret === '') {
    const problem = env.GRIDGATE_SECRET_ARN
      ? 'GRIDGATE_SECRET_ARN is not supported yet (no Secrets Manager client is bundled): set GRIDGATE_SECRET'
      : 'must be set: every Lambda environment must sign and verify session IDs with the same key';
    throw new ConfigError('GRIDGATE_SECRET', [problem]);
  }
  if (Buffer.byteLength(secret) < 32) {
    throw new ConfigError('GRIDGATE_SECRET', ['must be at least 32 characters long']);
  }
  return Buffer.from(secret, 'utf8');
}

/** A launcher made when first asked to start or stop a browser, then kept for the environment's life. */
function onFirstUse(make: () => Promise<Launcher>): Launcher {
  let made: Promise<Launcher> | undefined;
  const launcher = () => {
    // A failed load is not kept: the next request tries again.
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
  return {
    start: async (request) => (await launcher()).start(request),
    stop: async (handle, context) => (await launcher()).stop(handle, context),
  };
}
