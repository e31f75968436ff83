/**
 * The adapters that talk to AWS, made once per process or Lambda environment: the DynamoDB session
 * store, the ECS launcher (loaded with the first browser it starts), the warm-task store its pools claim
 * from and /status counts in, EMF metrics, the signing secret.
 * The router Lambda and the Node server both take them from here; tests give their own.
 */
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Dispatcher } from 'undici';
import { madeOnFirstUse, madeOnFirstUsePer } from '../core/made-on-first-use';
import type { Launcher, Logger, Metrics, SessionStore } from '../core/ports';
import { idleWarmTasks, type WarmTaskStore } from '../core/warm-task-store';
import type { EksPodApi } from '../pools/eks/eks-pod-api';
import type { DeployedEksPool } from '../pools/eks/eks-pool-check';
import type { KeepPodLog } from '../pools/eks/pod-log-keeper';
import { readSecretsManager, type SecretReader } from './signing-secret';

/** The adapters that talk to AWS, replaceable so tests (and other wiring) can give their own. */
export interface AwsAdapters {
  sessionStore(table: string, logger: Logger): Promise<SessionStore>;
  /** `warmTable`: the session table, when some ecs pool keeps warm tasks there to claim. */
  ecsLauncher(context: {
    agent: Dispatcher;
    logger: Logger;
    metrics: Metrics;
    warmTable?: string;
  }): Promise<Launcher>;
  /** `keepLog`: how a pod's browser log is kept in its pool's bucket before the pod is deleted. */
  eksLauncher(context: {
    agent: Dispatcher;
    logger: Logger;
    metrics: Metrics;
    keepLog: KeepPodLog;
  }): Promise<Launcher>;
  /**
   * The pod API of each eks pool's cluster (EKS tokens signed with the process's credentials), which the
   * launcher and the reads of running pods' logs share; made with the first call.
   */
  eksPodApis(): Promise<(pool: DeployedEksPool) => EksPodApi>;
  /** The warm tasks in `table`, which /status counts without making the ECS launcher; asked at every count. */
  warmTasks(table: string): Promise<WarmTaskStore>;
  metrics(): Promise<Metrics>;
  /** Reads the signing secret GRIDGATE_SECRET_ARN names. */
  secret: SecretReader;
  /**
   * The client ecs sessions' browser logs are read with, made with the first log asked for.
   * @default one with the SDK's default credentials and one try per call (pools/ecs/ecs-recordings.ts)
   */
  logsClient?(): Promise<CloudWatchLogsClient>;
  /**
   * The client eks sessions' videos are looked up and signed with, per bucket Region, made with the first
   * video asked for. @default one with the SDK's default credentials (pools/eks/eks-recordings.ts)
   */
  s3Client?(region: string): Promise<S3Client>;
}

// Each is called once per process or Lambda environment (at start-up, or warmTasks at every count, which
// keeps the store it made), so each SDK client is made once (the DynamoDB one is shared).
// Every one loads its SDK only when called: `npm start` on a laptop (memory store, local pools) would
// otherwise spend about half a second loading the DynamoDB client and Powertools it never uses.
export const awsAdapters: AwsAdapters = {
  sessionStore: async (table, logger) => {
    const [client, { DynamoSessionStore }] = await Promise.all([
      dynamoClient(),
      import('../adapters/aws/dynamo-session-store'),
    ]);
    return new DynamoSessionStore({
      client,
      table,
      onError: (error, { operation, key }) =>
        logger.log('UPSTREAM_ERROR', { store: 'dynamodb', operation, session: key, error: error.message }),
    });
  },
  // Loaded with the first new session that needs it: most invocations are commands, which never need
  // ECS, and evaluating the SDK is a large part of a cold start (bench/README.md, router Lambda).
  ecsLauncher: async ({ agent, logger, metrics, warmTable }) => {
    const [{ ECSClient }, { EcsLauncher }, { boundedRequests }] = await Promise.all([
      import('@aws-sdk/client-ecs'),
      import('../pools/ecs/ecs-launcher'),
      import('../adapters/aws/request-bounds'),
    ]);
    const warm = warmTable === undefined ? undefined : await warmTasksIn(warmTable);
    return new EcsLauncher({
      ecs: new ECSClient({ requestHandler: boundedRequests() }),
      agent,
      logger,
      metrics,
      warm,
    });
  },
  // Loaded with the first session on an eks pool, like ECS. The EKS token is signed with the same
  // credential chain as every SDK client (the Lambda role's, refreshed as it expires).
  eksLauncher: async ({ agent, logger, metrics, keepLog }) => {
    const [{ EksLauncher }, podApi] = await Promise.all([import('../pools/eks/eks-launcher'), awsPodApis()]);
    return new EksLauncher({ podApi, agent, logger, metrics, keepLog });
  },
  eksPodApis: () => awsPodApis(),
  warmTasks: (table) => warmTasksIn(table),
  metrics: async () => new (await import('../adapters/aws/emf-metrics')).EmfMetrics({ service: 'router' }),
  secret: readSecretsManager,
};

// One DynamoDB client for the environment's life: the session store, the warm tasks and the EKS token's
// credentials share its connection pool and credential chain.
const dynamoClient: () => Promise<DynamoDBClient> = madeOnFirstUse(async () =>
  (await import('../adapters/aws/dynamo-client')).newDynamoClient(),
);

// One pod API per cluster for the environment's life: the launcher and the log reads share its cached token.
const awsPodApis: () => Promise<(pool: DeployedEksPool) => EksPodApi> = madeOnFirstUse(async () => {
  const [{ eksPodApis }, sdk] = await Promise.all([import('../pools/eks/eks-pod-apis'), dynamoClient()]);
  return eksPodApis({ credentials: () => sdk.config.credentials(), region: await sdk.config.region() });
});

// One store per table for the environment's life, shared by the ECS launcher's claims and /status's counts.
const warmTasksIn: (table: string) => Promise<WarmTaskStore> = madeOnFirstUsePer(async (table: string) => {
  const [client, { DynamoWarmTasks }] = await Promise.all([
    dynamoClient(),
    import('../adapters/aws/dynamo-warm-tasks'),
  ]);
  return new DynamoWarmTasks({ client, table });
});

/**
 * How /status counts an ecs pool's warm tasks with `adapters`: the idle ones in the warm-task store, the
 * count EcsLauncher.warmCount makes, read without loading the ECS SDK (a large part of a cold start).
 * `warmTable`: the table the launcher claims from (none: it claims none, and counts 0).
 */
export function ecsWarmCount(
  adapters: AwsAdapters,
  warmTable: string | undefined,
): (pool: string) => Promise<number> {
  if (warmTable === undefined) return async () => 0;
  return async (pool) => idleWarmTasks(await adapters.warmTasks(warmTable), pool);
}

/**
 * A launcher made when first asked to start or stop a browser, then kept for the environment's life (its
 * SDK stays out of a cold start). A kind that keeps browsers ahead of demand (ecs) counts them apart, with a
 * store read that needs no launcher (ecsWarmCount).
 */
export function onFirstUse(make: () => Promise<Launcher>): Launcher {
  const launcher = madeOnFirstUse(make);
  return {
    start: async (request) => (await launcher()).start(request),
    stop: async (handle, context) => (await launcher()).stop(handle, context),
  };
}
