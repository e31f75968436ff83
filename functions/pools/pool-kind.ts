/**
 * A pool kind as one plain object: its config's schema, its run-time traits, the parts the entries ask of it
 * before any browser starts, and `load()`, the one import of the code and SDKs its browsers run on. One per
 * kind (pools/<kind>/<kind>-pool-kind.ts), listed in pools/index.ts.
 */
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { S3Client } from '@aws-sdk/client-s3';
import type { AwsCredentialIdentity } from '@smithy/types';
import type { Dispatcher } from 'undici';
import type * as z from 'zod';
import type { ArtifactSession, ArtifactSource } from '../core/artifact-ports';
import type { Config, PoolConfig } from '../core/config';
import type { PoolRuntime } from '../core/pool-runtime';
import type { PoolTraits } from '../core/pool-traits';
import type { Logger, Metrics } from '../core/ports';
import type { KeptRecordings } from '../core/recorded-in-store';
import type { WarmTaskStore } from '../core/warm-task-store';

export type PoolKindName = PoolConfig['kind'];
export type PoolConfigOf<K extends PoolKindName> = Extract<PoolConfig, { kind: K }>;

/**
 * AWS as a platform, as the kinds whose browsers run there use it (entry/aws-adapters.ts makes it once per
 * process; tests give their own): each client or store is made with its first use.
 */
export interface AwsPlatform {
  /** The warm tasks in `table` (an ecs pool's, claimed by its launcher and counted by /status). */
  warmTasks(table: string): Promise<WarmTaskStore>;
  /** The process's AWS credentials and Region, which an eks pool's EKS tokens are signed with. */
  identity(): Promise<{ credentials: () => Promise<AwsCredentialIdentity>; region: string }>;
  /** The client sessions' browser logs are read with. @default one with the SDK's default credentials */
  logsClient?: () => Promise<CloudWatchLogsClient>;
  /** The client of a bucket's Region. @default one per Region with the SDK's default credentials */
  s3Client?: (region: string) => Promise<S3Client>;
}

/** What a kind's runtime is made with, wherever gridgate runs (the Node server, the router Lambda). */
export interface RuntimeContext {
  /** The config at start-up. */
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** The HTTP client for browsers and hubs, shared with the app. */
  agent: Dispatcher;
  aws: AwsPlatform;
  /** The pool a session ran in, retired ones included. */
  poolOf(session: ArtifactSession): PoolConfig | undefined;
  /** GRIDGATE_DEPLOYMENT's text: where the stack keeps sessions' recordings; none: not on AWS. */
  deployment?: string;
}

/** A kind's runtime as made in this process, with where its sessions' recordings are served from. */
export interface KindRuntime<P extends PoolConfig = PoolConfig> {
  runtime: PoolRuntime<P>;
  /** Its sessions' videos and logs; none: not served here. */
  artifacts?: ArtifactSource;
}

/** What makes a kind's runtime: what its `load()` answers. */
export type RuntimeMakerOf<T> =
  T extends PoolKind<infer _K, infer R> ? (context: RuntimeContext) => Promise<R> : never;

/** For a kind loaded with its pools' first browser: what answers before then, made at start without loading it. */
export interface BeforeLoad<P extends PoolConfig> {
  /** Its runtime's parts but the launcher, which is the made runtime's. */
  parts?: Omit<PoolRuntime<P>, 'launcher'>;
  artifacts?: ArtifactSource;
}

/** `R`: what its runtime maker makes, when it is more than a KindRuntime (eks: the pod APIs its logs are read with). */
export interface PoolKind<
  K extends PoolKindName = PoolKindName,
  R extends KindRuntime<PoolConfigOf<K>> = KindRuntime<PoolConfigOf<K>>,
> {
  readonly name: K;
  /** Its config's schema (<kind>-pool-config.ts): one option of the config's `pools` union (pools/pool-configs.ts). */
  readonly schema: z.ZodType;
  /** What the use cases and servers know of it at run time (core/pool-traits.ts). */
  readonly traits: PoolTraits;
  /**
   * Loads what its browsers run on (its launcher's code and SDKs: the only import of them) and answers what
   * makes its runtime. The wiring calls it at start, or, for a kind with `beforeLoad`, with its first browser.
   */
  load?(): Promise<(context: RuntimeContext) => Promise<R>>;
  /**
   * Present for a kind loaded with its pools' first browser started or stopped, not at start, so its SDK
   * stays out of a Lambda's cold start (ecs, eks): the parts that answer before then. `loaded` makes its
   * runtime (once, shared with the launcher), for a part that needs what it loads.
   */
  beforeLoad?(context: RuntimeContext, loaded: () => Promise<R>): BeforeLoad<PoolConfigOf<K>>;
  /**
   * Which of an ended session's recordings its pool keeps; present for a kind whose ended sessions are
   * listed from the session store (core/recorded-in-store.ts), their recordings being in a bucket.
   */
  readonly kept?: KeptRecordings;
  /** What a pool of this kind still lacks to start browsers (settings the deployment fills in), each naming its key. */
  undeployedSettings?(pool: PoolConfigOf<K>): string[];
  /** Makes this machine ready for the config's pools of this kind before the server starts (installs what they run). */
  prepare?(pools: PoolConfigOf<K>[], logger: Logger): Promise<void>;
  /** Its browsers are Kubernetes pods: the scheduled cleanup needs a pod API to find and end them. */
  readonly browsersArePods?: boolean;
}
