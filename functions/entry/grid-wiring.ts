/**
 * The one wiring of GridDeps, for every entry: the Node server (start-grid.ts), the router Lambda
 * (aws-grid.ts) and a worker process of the Node server (grid-worker.ts) each give the adapters that differ
 * where they run (the store, metrics, users, the local launcher, which pool kinds, or that another process
 * starts the browsers), and get the same launchers, artifacts, queue, tokens and clock made the same way.
 */
import type { Dispatcher } from 'undici';
import packageJson from '../../package.json' with { type: 'json' };
import type { ArtifactSource } from '../core/artifact-ports';
import type { Config, ContainerPoolConfig, LocalPoolConfig } from '../core/config';
import { EndedSessions } from '../core/ended-sessions';
import { EndingSessions } from '../core/ending-sessions';
import { type GridDeps, sessionPool } from '../core/grid-deps';
import { onFirstUse } from '../core/launcher-on-first-use';
import { madeOnFirstUse } from '../core/made-on-first-use';
import type { PoolRuntime, RuntimesByKind } from '../core/pool-runtime';
import { type Logger, type Metrics, type SessionStore, systemClock, type UserDirectory } from '../core/ports';
import { listedFromStore } from '../core/recorded-in-store';
import type { RequestPricing } from '../core/session-cost';
import { SessionTokens } from '../core/session-token';
import { SlotQueue } from '../core/slot-queue';
import { POOL_KINDS, POOL_TRAITS, type RuntimeMakers } from '../pools';
import type { AwsPlatform, KindRuntime, PoolKindName, RuntimeContext } from '../pools/pool-kind';

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
  kinds: ReadonlySet<PoolKindName>;
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
  /** AWS as a platform, for the kinds whose browsers run there. */
  aws: AwsPlatform;
  /** GRIDGATE_DEPLOYMENT's text: where the stack keeps sessions' recordings. */
  deployment?: string;
  /** Runtime makers in place of what the kinds' `load()` answers (tests' fakes). */
  makers?: RuntimeMakers;
  /** The runtime of local pools and where their recordings are kept (the Node server's); none: no local pools. */
  local?: { runtime: PoolRuntime<LocalPoolConfig>; recordings: ArtifactSource };
  /** The runtime of container pools and where their logs are (the Node server's); none: no container pools. */
  container?: { runtime: PoolRuntime<ContainerPoolConfig>; recordings?: ArtifactSource };
}

/**
 * What an entry whose browsers another process starts gives (a worker process, whose primary holds the
 * grid): each kind's launcher asks that process, which also serves the videos and logs (none here).
 */
export interface RelayingParts extends CommonParts {
  launchedElsewhere: (kind: PoolKindName) => PoolRuntime;
}

export type GridParts = LaunchingParts | RelayingParts;

export async function gridDeps(parts: GridParts): Promise<GridDeps> {
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
    await wireKindsHere(parts, deps);
  }
  return deps;
}

function runtimesElsewhere(parts: RelayingParts): RuntimesByKind {
  return Object.fromEntries([...parts.kinds].map((kind) => [kind, parts.launchedElsewhere(kind)]));
}

/** Each kind's runtime and recordings, made here by the kind (its `load()`, or the maker given in its place). */
async function wireKindsHere(parts: LaunchingParts, deps: GridDeps): Promise<void> {
  const { config, logger, metrics, agent, aws, deployment, kinds } = parts;
  const context: RuntimeContext = {
    config,
    logger,
    metrics,
    agent,
    aws,
    deployment,
    // A session's pool, reloads and retired pools included.
    poolOf: (session) => sessionPool(deps, session),
  };
  const runtimes: Partial<Record<PoolKindName, PoolRuntime>> = {};
  const artifacts: NonNullable<GridDeps['artifacts']> = {};
  if (parts.local && kinds.has('local')) {
    runtimes.local = parts.local.runtime;
    artifacts.local = parts.local.recordings;
  }
  if (parts.container && kinds.has('container')) {
    runtimes.container = parts.container.runtime;
    // A container session's log is its container's output, while it runs.
    if (parts.container.recordings) artifacts.container = parts.container.recordings;
  }
  for (const kind of Object.values(POOL_KINDS)) {
    if (!kinds.has(kind.name) || !kind.load) continue;
    const load = kind.load.bind(kind);
    const given = parts.makers?.[kind.name] as
      | ((context: RuntimeContext) => Promise<KindRuntime>)
      | undefined;
    const made = await madeByKind(kind, context, async () => (given ?? (await load()))(context));
    runtimes[kind.name] = made.runtime;
    if (made.artifacts) {
      // A kind whose recordings are in a bucket lists its ended sessions' from the store (recorded-in-store.ts).
      artifacts[kind.name] = kind.kept
        ? listedFromStore(made.artifacts, deps, kind.name, kind.kept)
        : made.artifacts;
    }
  }
  deps.runtimes = runtimes as RuntimesByKind;
  deps.artifacts = artifacts;
}

/**
 * A kind's runtime: made now, or for a kind loaded with its pools' first browser (`beforeLoad`), its launcher
 * made then and its other parts now.
 */
async function madeByKind(
  kind: (typeof POOL_KINDS)[PoolKindName],
  context: RuntimeContext,
  make: () => Promise<KindRuntime>,
): Promise<KindRuntime> {
  if (!kind.beforeLoad) return make();
  const loaded = madeOnFirstUse(make);
  const before = kind.beforeLoad(context, loaded as never);
  const launcher = onFirstUse(async () => (await loaded()).runtime.launcher);
  return {
    runtime: { ...before.parts, launcher },
    ...(before.artifacts ? { artifacts: before.artifacts } : {}),
  };
}

/** Every pool kind in the registry: what a server whose config may be reloaded gives launchers to. */
export const EVERY_POOL_KIND: ReadonlySet<PoolKindName> = new Set(Object.keys(POOL_KINDS) as PoolKindName[]);

/** The pool kinds a config uses. */
export function poolKindsOf(config: Config): ReadonlySet<PoolKindName> {
  return new Set(Object.values(config.pools).map((pool) => pool.kind));
}
