/**
 * A pool kind as one plain object: its run-time traits, the parts the entries ask of it before any browser
 * starts, and `load()`, the one import of the code and SDKs its browsers run on (and, for a kind whose browsers
 * outlive a router, `cleanup.load()`, that of its part of the scheduled cleanup). One per kind
 * (pools/<kind>/<kind>-pool-kind.ts), listed in pools/index.ts. Its config's schema and config-side traits are
 * not here but in its config side (<kind>-pool-config.ts), listed once, in pools/pool-configs.ts, for core to
 * read without reaching the kind's runtime; the kind's pool type (PoolConfigOf) is derived from that list.
 */
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { S3Client } from '@aws-sdk/client-s3';
import type { AwsCredentialIdentity } from '@smithy/types';
import type { Dispatcher } from 'undici';
import type { ArtifactSession, ArtifactSource } from '../core/artifact-ports';
import type { BrowserFleet } from '../core/browser-fleet';
import type { Config, PoolConfig } from '../core/config';
import type { PeriodicTask } from '../core/periodic-task';
import type { PoolRuntime } from '../core/pool-runtime';
import type { PoolTraits } from '../core/pool-traits';
import type { Clock, Logger, Metrics, SessionStore } from '../core/ports';
import type { KeptRecordings } from '../core/recorded-in-store';
import type { SessionRecorder } from '../core/session-recorder';
import type { VideoPlace, VideoPlaceOf } from '../core/unkept-videos';
import type { WarmPoolDeps } from '../core/warm-demand';
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

/** Sessions' recordings on this machine while they run, and where they are kept once ended. */
export interface RecordingsHere {
  recorder: SessionRecorder;
  kept: ArtifactSource;
}

/** What a kind's runtime is made with, wherever gridgate runs (the Node server, the router Lambda). */
export interface RuntimeContext {
  /** The config at start-up. */
  config: Config;
  /** The config in use now (a Node server's reloads swap it). */
  current(): Config;
  logger: Logger;
  metrics: Metrics;
  /** The HTTP client for browsers and hubs, shared with the app. */
  agent: Dispatcher;
  aws: AwsPlatform;
  /** The pool a session ran in, retired ones included. */
  poolOf(session: ArtifactSession): PoolConfig | undefined;
  /** GRIDGATE_DEPLOYMENT's text: where the stack keeps sessions' recordings; none: not on AWS. */
  deployment?: string;
  /** A browser on this machine that exited without being stopped: its session is over. */
  onUnexpectedExit(handle: string, exit: object): void;
  /**
   * Sessions' recordings on this machine, when a kind made before this one keeps them (the local kind's,
   * which container sessions record into as local ones do); none: this kind's sessions record nothing here.
   */
  recordings?: RecordingsHere;
}

/** For a kind whose browsers run on this machine (local, container): what the Node server asks of them. */
export interface BrowsersHere {
  /** Whether this machine still runs the browser with this handle (a session's, or a warm one). */
  isRunning(handle: string): boolean;
  /** Stops every browser: sessions still being created too, and warm ones. */
  stopAll(): Promise<void>;
  /** Starts the periodic work (warm browsers, recordings past their retention); it reads `current()`. */
  runPeriodically(): PeriodicTask[];
  /**
   * The browsers of sessions another head may end, on a store heads share (a container's: only the head
   * that runs it can stop it, use-cases/stop-browsers-ended-elsewhere.ts); none: such sessions end here.
   */
  ofSessionsEndedElsewhere?(): readonly { key: string; handle: string }[];
}

/** A kind's runtime as made in this process, with where its sessions' recordings are served from. */
export interface KindRuntime<P extends PoolConfig = PoolConfig> {
  runtime: PoolRuntime<P>;
  /** Its sessions' videos and logs; none: not served here. */
  artifacts?: ArtifactSource;
  /** Its browsers on this machine; none: they run elsewhere. */
  here?: BrowsersHere;
  /** Sessions' recordings it keeps on this machine, for the kinds made after it. */
  recordings?: RecordingsHere;
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

/**
 * What a kind's part of the scheduled cleanup is made with, once per process (the cleanup Lambda's
 * environment): AWS as a platform, as the cleanup Lambda has it (entry/aws-job-wiring.ts).
 */
export interface CleanupContext {
  /** The config, which does not change in the cleanup's process. */
  config: Config;
  sessions: SessionStore;
  logger: Logger;
  clock: Clock;
  /** The process's AWS credentials and Region (an eks pool's EKS tokens are signed with them). */
  aws: Pick<AwsPlatform, 'identity'>;
  /** The stack's recordings bucket and its Region (an ecs pool's recorder uploads there); none: no such bucket. */
  recordings?: VideoPlace;
  /** The warm browsers' store and recent demand; none: warm browsers are neither started nor registered. */
  warm?: WarmPoolDeps;
  /** Waits between stop calls (their rate bound); tests pass one that only records. */
  sleep?: (ms: number) => Promise<void>;
  /** At most this many stop calls per second, over all of a kind's places. @default the kind's own */
  stopsPerSecond?: number;
}

/** What a kind gives the scheduled cleanup, whose pass decides for every kind alike (use-cases/cleanup-pass.ts). */
export interface KindCleanup {
  /** Its browsers as a fleet, made for one pass (a fleet paces its own pass's stop calls). */
  fleet(): BrowserFleet;
  /** Where its pools' recorders upload sessions' videos, which the cleanup deletes when not kept; none: nowhere. */
  videoPlace?: VideoPlaceOf;
}

/** What makes a kind's part of the scheduled cleanup: what its `cleanup.load()` answers. */
export type CleanupMaker = (context: CleanupContext) => Promise<KindCleanup>;

/** `R`: what its runtime maker makes, when it is more than a KindRuntime (eks: the pod APIs its logs are read with). */
export interface PoolKind<
  K extends PoolKindName = PoolKindName,
  R extends KindRuntime<PoolConfigOf<K>> = KindRuntime<PoolConfigOf<K>>,
> {
  readonly name: K;
  /** What the use cases and servers know of it at run time (core/pool-traits.ts). */
  readonly traits: PoolTraits;
  /**
   * Loads what its browsers run on (its launcher's code and SDKs: the only import of them) and answers what
   * makes its runtime. The wiring calls it at start, or, for a kind with `beforeLoad`, with its first browser.
   */
  load(): Promise<(context: RuntimeContext) => Promise<R>>;
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
  /**
   * Present for the kind of the built-in catalog's one pool (a config without pools): makes this machine ready
   * for it, and answers the version of its browser here, which names the catalog's version (undefined: none).
   */
  readonly builtInCatalog?: {
    prepare(logger: Logger): Promise<void>;
    version(): Promise<string | undefined>;
  };
  /**
   * The parts of its runtime a worker process of the Node server serves itself, its primary (`primaryPid`)
   * starting the browsers; every other part, and the launcher, ask the primary.
   */
  servedByWorkers?(primaryPid: number): Omit<PoolRuntime<PoolConfigOf<K>>, 'launcher'>;
  /**
   * Present for a kind whose browsers can outlive the process that started them (a task, a pod): its part of
   * the scheduled cleanup. `load()` is the only import of the code and SDK that part runs on, called only
   * where the config has pools of the kind.
   */
  readonly cleanup?: { load(): Promise<CleanupMaker> };
}
