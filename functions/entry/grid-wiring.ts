/**
 * The one wiring of GridDeps, for every entry: the Node server (start-grid.ts), the router Lambda
 * (aws-grid.ts) and a worker process of the Node server (grid-worker.ts) each give the adapters that differ
 * where they run (the store, metrics, users, the local launcher, which pool kinds, or that another process
 * starts the browsers), and get the same launchers, artifacts, queue, tokens and clock made the same way.
 */
import type { Dispatcher } from 'undici';
import packageJson from '../../package.json' with { type: 'json' };
import type { ArtifactSource } from '../core/artifact-ports';
import type { Config, ContainerPoolConfig, LocalPoolConfig, PoolConfig } from '../core/config';
import { EndedSessions } from '../core/ended-sessions';
import { EndingSessions } from '../core/ending-sessions';
import { type GridDeps, sessionPool } from '../core/grid-deps';
import type { PoolRuntime, RuntimesByKind } from '../core/pool-runtime';
import {
  type Launcher,
  type Logger,
  type Metrics,
  type SessionStore,
  systemClock,
  type UserDirectory,
} from '../core/ports';
import { listedFromStore } from '../core/recorded-in-store';
import type { RequestPricing } from '../core/session-cost';
import { SessionTokens } from '../core/session-token';
import { SlotQueue } from '../core/slot-queue';
import { warmTaskTable } from '../core/warm-tasks';
import { POOL_KINDS, POOL_TRAITS } from '../pools';
import { ecsKept } from '../pools/ecs/ecs-recordings';
import { eksLauncherByAuth } from '../pools/eks/eks-auth-launcher';
import { type EksPodApisByAuth, eksKept, eksRecordings } from '../pools/eks/eks-recordings';
import { podLogKeeper } from '../pools/eks/pod-log-keeper';
import { HubArtifacts } from '../pools/hub/hub-artifacts';
import { hubRuntime } from '../pools/hub/hub-pool-runtime';
import { type AwsAdapters, ecsWarmCount, onFirstUse } from './aws-adapters';

type PoolKind = PoolConfig['kind'];

/** What every entry gives. */
interface CommonParts {
  config: Config;
  secret: Buffer;
  logger: Logger;
  metrics: Metrics;
  sessions: SessionStore;
  /** The HTTP client for browsers and hubs, shared with the app. */
  agent: Dispatcher;
  /**
   * The pool kinds that get a launcher: every kind where a reload may add any (the Node server), the
   * config's own where the config never changes (a Lambda environment), the primary's (a worker process).
   */
  kinds: ReadonlySet<PoolKind>;
  /** Checks Basic-auth credentials; present exactly when the config names a usersFile. */
  users?: UserDirectory;
  /** The sessions ended lately; by default a new, empty memory. */
  ended?: EndedSessions;
  requestPricing?: RequestPricing;
  /** This process's name among the heads sharing a store (GridDeps.head); none: records name no head. */
  head?: string;
}

/** What an entry that starts its browsers itself gives (the Node server, its primary, the router Lambda). */
export interface LaunchingParts extends CommonParts {
  aws: AwsAdapters;
  /** The runtime of local pools and where their recordings are kept (the Node server's); none: no local pools. */
  local?: { runtime: PoolRuntime<LocalPoolConfig>; recordings: ArtifactSource };
  /** The runtime of container pools and where their logs are (the Node server's); none: no container pools. */
  container?: { runtime: PoolRuntime<ContainerPoolConfig>; recordings?: ArtifactSource };
  /**
   * The launcher of eks pools that name a kubeconfig (the Node server's; given by the entry so the Kubernetes
   * client stays out of the router Lambda's asset); none: every eks pool signs EKS tokens.
   */
  kubeconfigEks?: Launcher;
  /** The pod API of eks pools that name a kubeconfig, shared with that launcher (their running pods' logs). */
  kubeconfigPodApis?: EksPodApisByAuth['kubeconfig'];
  /** Where ecs sessions' videos and browser logs are (pools/ecs/ecs-recordings.ts); none: not served. */
  ecsRecordings?: ArtifactSource;
}

/**
 * What an entry whose browsers another process starts gives (a worker process, whose primary holds the
 * grid): each kind's launcher asks that process, which also serves the videos and logs (none here).
 */
export interface RelayingParts extends CommonParts {
  launchedElsewhere: (kind: PoolKind) => PoolRuntime;
}

export type GridParts = LaunchingParts | RelayingParts;

export function gridDeps(parts: GridParts): GridDeps {
  const deps: GridDeps = {
    config: parts.config,
    runtimes: {},
    poolTraits: POOL_TRAITS,
    sessions: parts.sessions,
    queue: new SlotQueue(),
    ended: parts.ended ?? new EndedSessions(),
    ending: new EndingSessions(),
    users: parts.users,
    tokens: new SessionTokens(parts.secret),
    logger: parts.logger,
    metrics: parts.metrics,
    requestPricing: parts.requestPricing,
    clock: systemClock,
    version: packageJson.version,
    configLoadedAt: systemClock.now(),
    creating: new Set(),
    head: parts.head,
  };
  if ('launchedElsewhere' in parts) {
    deps.runtimes = runtimesElsewhere(parts);
  } else {
    deps.runtimes = runtimesHere(parts);
    // Hub artifacts find a session's pool through deps, reloads included.
    deps.artifacts = artifactsHere(parts, deps);
  }
  return deps;
}

function runtimesElsewhere(parts: RelayingParts): RuntimesByKind {
  return Object.fromEntries([...parts.kinds].map((kind) => [kind, parts.launchedElsewhere(kind)]));
}

function runtimesHere(parts: LaunchingParts): RuntimesByKind {
  const { config, logger, metrics, agent, aws, kinds } = parts;
  const runtimes: RuntimesByKind = {};
  if (parts.local && kinds.has('local')) runtimes.local = parts.local.runtime;
  if (kinds.has('hub')) runtimes.hub = hubRuntime();
  if (parts.container && kinds.has('container')) runtimes.container = parts.container.runtime;
  // Heads sharing a DynamoDB table claim the warm tasks the cleanup keeps there.
  const warmTable = warmTaskTable(config);
  if (kinds.has('ecs')) {
    runtimes.ecs = {
      launcher: onFirstUse(() => aws.ecsLauncher({ agent, logger, metrics, warmTable })),
      // /status counts warm tasks in the table, so answering it never loads the ECS SDK.
      warm: { warmCount: ecsWarmCount(aws, warmTable) },
    };
  }
  if (kinds.has('eks')) {
    const keepLog = podLogKeeper(logger, aws.s3Client);
    const withAws = onFirstUse(() => aws.eksLauncher({ agent, logger, metrics, keepLog }));
    runtimes.eks = {
      launcher: parts.kubeconfigEks
        ? eksLauncherByAuth({ aws: withAws, kubeconfig: parts.kubeconfigEks })
        : withAws,
    };
  }
  return runtimes;
}

function artifactsHere(parts: LaunchingParts, deps: GridDeps): GridDeps['artifacts'] {
  const { kinds } = parts;
  const poolOf = (session: { pool: string; address: string }) => sessionPool(deps, session);
  return {
    ...(parts.local && kinds.has('local') ? { local: parts.local.recordings } : {}),
    // A container session's log is its container's output, while it runs.
    ...(parts.container?.recordings && kinds.has('container')
      ? { container: parts.container.recordings }
      : {}),
    // ecs and eks sessions' recordings are listed, and their owners known, from the store (core/recorded-in-store.ts).
    ...(parts.ecsRecordings ? { ecs: listedFromStore(parts.ecsRecordings, deps, 'ecs', ecsKept) } : {}),
    // eks sessions' videos are in the bucket their pool's recorder names, wherever gridgate runs; their logs
    // in their pods while they run, and kept in that bucket after.
    ...(kinds.has('eks')
      ? {
          eks: listedFromStore(
            eksRecordings(poolOf, {
              s3Client: parts.aws.s3Client,
              podApis: { aws: () => parts.aws.eksPodApis(), kubeconfig: parts.kubeconfigPodApis },
            }),
            deps,
            'eks',
            eksKept,
          ),
        }
      : {}),
    // Hub sessions' videos and logs come from their hubs.
    ...(kinds.has('hub') ? { hub: new HubArtifacts(poolOf, parts.agent) } : {}),
  };
}

/** Every pool kind in the registry: what a server whose config may be reloaded gives launchers to. */
export const EVERY_POOL_KIND: ReadonlySet<PoolKind> = new Set(Object.keys(POOL_KINDS) as PoolKind[]);

/** The pool kinds a config uses. */
export function poolKindsOf(config: Config): ReadonlySet<PoolKind> {
  return new Set(Object.values(config.pools).map((pool) => pool.kind));
}
