/**
 * Each pool kind's config-side traits (pool-config-traits.ts), by kind: the one table that says how local,
 * hub, ecs, eks and container pools differ where only their config is known. A new kind adds one entry.
 */
import { inNetworks, onLoopback } from './address-rules';
import type { PoolConfig } from './config-pools';
import { type HubPoolConfig, hubEndpointOf } from './hub-endpoint';
import { localLaunchRefusal } from './local-launch-options';
import type { PoolConfigTraits } from './pool-config-traits';

type Kind = PoolConfig['kind'];
type PoolOf<K extends Kind> = Extract<PoolConfig, { kind: K }>;

/** A browser reached at its own address, with no base path and no credentials of gridgate's. */
const direct = (_pool: PoolConfig, address: string) => ({ origin: `http://${address}`, basePath: '' });

/** A Selenium node in a Fargate task or a pod: inside the pool's networks, its noVNC beside it. */
const seleniumNodeTraits = {
  addressAllowed: (pool: PoolOf<'ecs' | 'eks'>, address: string) =>
    inNetworks(pool.networks ?? [], pool.port, address),
  upstreamEndpoint: direct,
  startsCold: true,
  vncBesideBrowser: (pool: PoolOf<'ecs' | 'eks'>) =>
    pool.vncPort ? { port: pool.vncPort, password: pool.vncPassword } : undefined,
};

/** An ecs pool whose `warm` has a max above 0: only those keep warm tasks, claimed and counted. */
const warmTasks = (pool: PoolOf<'ecs'>) => (pool.warm?.max ?? 0) > 0;

const CONFIG_TRAITS: { [K in Kind]: PoolConfigTraits<PoolOf<K>> } = {
  local: {
    addressAllowed: (_pool, address) => onLoopback(address),
    upstreamEndpoint: direct,
    startsCold: false,
    keepsWarm: (pool) => (pool.warm ?? 0) > 0,
    // Its Chromium, its binary and its switches are this machine's (DESIGN invariant 7).
    launchRefusal: localLaunchRefusal,
    notOnAws: 'local pools cannot run in Lambda (no Chromium there)',
  },
  hub: {
    // A hub pool's sessions live on that hub and nowhere else.
    addressAllowed: (pool, address) => address === hubEndpointOf(pool).address,
    upstreamEndpoint: (pool) => hubEndpointOf(pool).endpoint,
    sharedEndpoint: (pool: HubPoolConfig) => hubEndpointOf(pool),
    startsCold: false,
    keepsWarm: () => false,
    attemptTimeoutMs: (pool, share) => pool.timeout ?? share,
  },
  ecs: {
    ...seleniumNodeTraits,
    keepsWarm: (pool) => warmTasks(pool),
    warmInStore: (pool) => warmTasks(pool),
    inputProblems: (input) =>
      input.architecture === 'arm64' && input.spot !== false
        ? [{ path: ['spot'], message: 'Fargate Spot runs x86_64 only: set "spot": false for an arm64 pool' }]
        : [],
  },
  eks: {
    ...seleniumNodeTraits,
    keepsWarm: () => false,
    // Every eks pool keeps its ended sessions' pod logs there, recorder or not (unless the file names its own).
    withRecordingsBucket: (input, place) => {
      const { recorder, logBucket } = input;
      return {
        ...input,
        ...(logBucket === undefined ? { logBucket: place } : {}),
        ...(typeof recorder === 'object' && recorder !== null ? { recorder: { ...recorder, ...place } } : {}),
      };
    },
  },
  container: {
    // A container's WebDriver port is published on this machine's loopback (pools/container/).
    addressAllowed: (_pool, address) => onLoopback(address),
    upstreamEndpoint: direct,
    startsCold: false,
    keepsWarm: (pool) => (pool.warm ?? 0) > 0,
    notOnAws: 'container pools cannot run in Lambda (no podman or Docker there)',
  },
};

/** The config-side traits of the pool's kind, typed for that pool. */
export function configTraitsOf<P extends PoolConfig>(pool: P): PoolConfigTraits<P> {
  // The table is keyed by the same discriminant the pool carries, so the entry is the pool's own kind's.
  return CONFIG_TRAITS[pool.kind] as unknown as PoolConfigTraits<P>;
}

/** The traits of a kind named in a config as written (not yet parsed): undefined for a name that is no kind. */
export function configTraitsNamed(kind: unknown): PoolConfigTraits | undefined {
  return typeof kind === 'string' && Object.hasOwn(CONFIG_TRAITS, kind)
    ? (CONFIG_TRAITS[kind as Kind] as unknown as PoolConfigTraits)
    : undefined;
}
