/**
 * What only the deployment knows — the cluster, task definitions, subnets, security groups, VPC
 * networks and the table — given to the AWS entries as GRIDGATE_DEPLOYMENT (JSON) next to the
 * config file they are bundled with. The CDK app writes it from the resources it creates (CloudFormation
 * fills in the names), so the config file a team edits never holds ARNs and cannot drift from the stack.
 */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { ConfigError } from './config';
import { configTraitsNamed } from './config-traits-by-kind';

const ecsPoolDeployment = z.strictObject({
  cluster: z.string().min(1),
  taskDefinition: z.string().min(1),
  subnets: z.array(z.string().min(1)).min(1),
  securityGroups: z.array(z.string().min(1)).min(1),
  networks: z.array(z.string().min(1)).min(1),
});

export const deploymentSchema = z.strictObject({
  /** The DynamoDB table of quota slots and session records. */
  table: z.string().min(3).optional(),
  /** Per ecs pool, by the pool's name in the config file. */
  pools: z.record(z.string(), ecsPoolDeployment).default({}),
  /**
   * The S3 bucket ecs and eks pools' video recorders upload to (functions/pools/selenium-node/s3-recordings.ts); an eks
   * pool's recorder is told it, with `region`, in each pod it starts, and every eks pool keeps its ended
   * sessions' pod logs there (functions/pools/eks/pod-log-archive.ts).
   */
  recordingsBucket: z.string().min(3).optional(),
  /** The stack's Region: where the recordings bucket is. */
  region: z.string().min(1).optional(),
  /**
   * The log group ecs tasks' containers log to (awslogs), where the router reads sessions' browser logs
   * (functions/pools/ecs/cloudwatch-browser-logs.ts).
   */
  browserLogGroup: z.string().min(1).optional(),
  /** The custom domain, whose one-label subdomains are colours unless the file names its own base domains. */
  baseDomains: z.array(z.string().min(1)).optional(),
  /** The load balancer's URL in front of router heads, for the WebSocket URLs they hand out (publicUrl). */
  publicUrl: z.url().optional(),
  /**
   * Where a head in a container listens, over the file's `host`: its load balancer reaches it through the
   * container's interface, never its loopback (the default listen address).
   */
  host: z.string().min(1).optional(),
});

export type Deployment = z.output<typeof deploymentSchema>;
export type EcsPoolDeployment = z.output<typeof ecsPoolDeployment>;

/** GRIDGATE_DEPLOYMENT's text, validated; every problem named. */
export function parseDeployment(text: string): Deployment {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError('GRIDGATE_DEPLOYMENT', [`is not JSON: ${(error as Error).message}`]);
  }
  const result = deploymentSchema.safeParse(json);
  if (result.success) return result.data;
  throw new ConfigError(
    'GRIDGATE_DEPLOYMENT',
    result.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`),
  );
}

/**
 * The raw config (as read from its file, before parseConfig) with the deployment's facts laid over it:
 * the table becomes the store, each deployed pool gets its cluster, task definition and network, each eks
 * pool the recordings bucket as its log bucket (and its recorder's), and a head in a container its listen address.
 * A deployed pool the config does not name is a mismatch between stack and file, and refused.
 */
export function applyDeployment(raw: unknown, deployment: Deployment): unknown {
  const config = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const pools = { ...((config.pools as Record<string, unknown> | undefined) ?? {}) };
  const unknown = Object.keys(deployment.pools).filter((name) => !Object.hasOwn(pools, name));
  if (unknown.length > 0) {
    throw new ConfigError(
      'GRIDGATE_DEPLOYMENT',
      unknown.map((name) => `pools.${name}: the config file has no pool of that name`),
    );
  }
  for (const [name, facts] of Object.entries(deployment.pools)) {
    pools[name] = { ...(pools[name] as Record<string, unknown>), ...facts };
  }
  const { recordingsBucket: bucket, region } = deployment;
  if (bucket && region) {
    for (const [name, pool] of Object.entries(pools)) {
      const written = (pool ?? {}) as Record<string, unknown>;
      const laid = configTraitsNamed(written.kind)?.withRecordingsBucket?.(written, { bucket, region });
      if (laid) pools[name] = laid;
    }
  }
  const colors = (config.colors as Record<string, unknown> | undefined) ?? {};
  return {
    ...config,
    ...(Object.keys(pools).length > 0 ? { pools } : {}),
    ...(deployment.table ? { store: { kind: 'dynamodb', table: deployment.table } } : {}),
    ...(deployment.publicUrl && config.publicUrl === undefined ? { publicUrl: deployment.publicUrl } : {}),
    ...(deployment.host ? { host: deployment.host } : {}),
    ...(deployment.baseDomains && colors.baseDomains === undefined
      ? { colors: { ...colors, baseDomains: deployment.baseDomains } }
      : {}),
  };
}
