/**
 * AWS as a platform, made once per process or Lambda environment: the DynamoDB session store, the warm-task
 * store ecs pools claim from and /status counts in, the credentials eks pools sign EKS tokens with, EMF
 * metrics, the signing secret. The pool kinds' own SDKs load with their runtimes (pools/<kind>/).
 * The router Lambda and the Node server both take them from here; tests give their own.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { madeOnFirstUse, madeOnFirstUsePer } from '../core/made-on-first-use';
import type { Logger, Metrics, SessionStore } from '../core/ports';
import type { WarmTaskStore } from '../core/warm-task-store';
import type { AwsPlatform } from '../pools/pool-kind';
import { readSecretsManager, type SecretReader } from './signing-secret';

/** The adapters that talk to AWS, replaceable so tests (and other wiring) can give their own. */
export interface AwsAdapters extends AwsPlatform {
  sessionStore(table: string, logger: Logger): Promise<SessionStore>;
  metrics(): Promise<Metrics>;
  /** Reads the signing secret GRIDGATE_SECRET_ARN names. */
  secret: SecretReader;
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
  warmTasks: (table) => warmTasksIn(table),
  // The same credential chain as every SDK client (the Lambda role's, refreshed as it expires).
  identity: async () => {
    const sdk = await dynamoClient();
    return { credentials: () => sdk.config.credentials(), region: await sdk.config.region() };
  },
  metrics: async () => new (await import('../adapters/aws/emf-metrics')).EmfMetrics({ service: 'router' }),
  secret: readSecretsManager,
};

// One DynamoDB client for the environment's life: the session store, the warm tasks and the EKS token's
// credentials share its connection pool and credential chain.
const dynamoClient: () => Promise<DynamoDBClient> = madeOnFirstUse(async () =>
  (await import('../adapters/aws/dynamo-client')).newDynamoClient(),
);

// One store per table for the environment's life, shared by the ECS launcher's claims and /status's counts.
const warmTasksIn: (table: string) => Promise<WarmTaskStore> = madeOnFirstUsePer(async (table: string) => {
  const [client, { DynamoWarmTasks }] = await Promise.all([
    dynamoClient(),
    import('../adapters/aws/dynamo-warm-tasks'),
  ]);
  return new DynamoWarmTasks({ client, table });
});
