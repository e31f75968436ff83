/**
 * The one wiring of GridDeps, for both entries: the Node server (start-grid.ts) and the router Lambda
 * (aws-grid.ts) each give the adapters that differ where they run (the store, metrics, users, the local
 * launcher, which pool kinds), and get the same launchers, artifacts, queue, tokens and clock made the
 * same way.
 */
import type { Dispatcher } from 'undici';
import packageJson from '../../package.json' with { type: 'json' };
import { eksLauncherByAuth } from '../adapters/aws/eks-auth-launcher';
import { HubArtifacts } from '../adapters/hub/hub-artifacts';
import { HubLauncher } from '../adapters/hub/hub-launcher';
import type { ArtifactSource } from '../core/artifact-ports';
import type { Config, PoolConfig } from '../core/config';
import { EndedSessions } from '../core/ended-sessions';
import { type GridDeps, sessionPool } from '../core/grid-deps';
import {
  type Launcher,
  type Logger,
  type Metrics,
  type SessionStore,
  systemClock,
  type UserDirectory,
} from '../core/ports';
import type { RequestPricing } from '../core/session-cost';
import { SessionTokens } from '../core/session-token';
import { SlotQueue } from '../core/slot-queue';
import { warmTaskTable } from '../core/warm-tasks';
import { type AwsAdapters, ecsWarmCount, onFirstUse } from './aws-adapters';

type PoolKind = PoolConfig['kind'];

export interface GridParts {
  config: Config;
  secret: Buffer;
  logger: Logger;
  metrics: Metrics;
  sessions: SessionStore;
  /** The HTTP client for browsers and hubs, shared with the app. */
  agent: Dispatcher;
  aws: AwsAdapters;
  /**
   * The pool kinds that get a launcher: every kind where a reload may add any (the Node server), the
   * config's own where the config never changes (a Lambda environment).
   */
  kinds: ReadonlySet<PoolKind>;
  /** The launcher of local pools and where their recordings are kept (the Node server's); none: no local pools. */
  local?: { launcher: Launcher; recordings: ArtifactSource };
  /**
   * The launcher of eks pools that name a kubeconfig (the Node server's; given by the entry so the Kubernetes
   * client stays out of the router Lambda's asset); none: every eks pool signs EKS tokens.
   */
  kubeconfigEks?: Launcher;
  /** Where ecs sessions' videos are (the recordings bucket); none: not served. */
  ecsRecordings?: ArtifactSource;
  /** Checks Basic-auth credentials; present exactly when the config names a usersFile. */
  users?: UserDirectory;
  /** The sessions ended lately; by default a new, empty memory. */
  ended?: EndedSessions;
  requestPricing?: RequestPricing;
}

export function gridDeps(parts: GridParts): GridDeps {
  const { config, logger, metrics, agent, aws, kinds } = parts;
  const launchers: GridDeps['launchers'] = {};
  if (parts.local && kinds.has('local')) launchers.local = parts.local.launcher;
  if (kinds.has('hub')) launchers.hub = new HubLauncher();
  // Heads sharing a DynamoDB table claim the warm tasks the cleanup keeps there.
  const warmTable = warmTaskTable(config);
  if (kinds.has('ecs')) {
    // /status counts warm tasks in the table, so answering it never loads the ECS SDK.
    launchers.ecs = onFirstUse(
      () => aws.ecsLauncher({ agent, logger, metrics, warmTable }),
      ecsWarmCount(aws, warmTable),
    );
  }
  if (kinds.has('eks')) {
    const withAws = onFirstUse(() => aws.eksLauncher({ agent, logger, metrics }));
    launchers.eks = parts.kubeconfigEks
      ? eksLauncherByAuth({ aws: withAws, kubeconfig: parts.kubeconfigEks })
      : withAws;
  }
  const deps: GridDeps = {
    config,
    launchers,
    artifacts: {
      ...(parts.local && kinds.has('local') ? { local: parts.local.recordings } : {}),
      ...(parts.ecsRecordings ? { ecs: parts.ecsRecordings } : {}),
      // Hub sessions' videos and logs come from their hubs.
      ...(kinds.has('hub') ? { hub: new HubArtifacts((session) => sessionPool(deps, session), agent) } : {}),
    },
    sessions: parts.sessions,
    queue: new SlotQueue(),
    ended: parts.ended ?? new EndedSessions(),
    users: parts.users,
    tokens: new SessionTokens(parts.secret),
    logger,
    metrics,
    requestPricing: parts.requestPricing,
    clock: systemClock,
    version: packageJson.version,
    configLoadedAt: systemClock.now(),
  };
  return deps;
}

// Every kind by name, so a new pool kind cannot be left out of the set below.
const KINDS: Record<PoolKind, true> = { local: true, hub: true, ecs: true, eks: true };

/** Every pool kind: what a server whose config may be reloaded gives launchers to. */
export const EVERY_POOL_KIND: ReadonlySet<PoolKind> = new Set(Object.keys(KINDS) as PoolKind[]);

/** The pool kinds a config uses. */
export function poolKindsOf(config: Config): ReadonlySet<PoolKind> {
  return new Set(Object.values(config.pools).map((pool) => pool.kind));
}
