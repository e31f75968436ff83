/**
 * Configs with a single pool, parsed by the real parser as a user's file is, so a test gets a pool's
 * settings with gridgate's defaults and units filled in rather than writing them out.
 */
import {
  type Config,
  type EcsPoolConfig,
  type EksPoolConfig,
  type PoolConfig,
  parseConfig,
} from '../../functions/core/config';

type LocalPoolConfig = Extract<PoolConfig, { kind: 'local' }>;

/** Chrome 156, the default version, served by the one pool `name`; `rest` adds the other top-level keys. */
export function configWithOnePool(
  name: string,
  pool: Record<string, unknown>,
  rest: Record<string, unknown> = {},
): Config {
  return parseConfig(
    {
      ...rest,
      browsers: { chrome: { defaultVersion: '156', versions: { '156': { pools: [name] } } } },
      pools: { [name]: pool },
    },
    { builtInBrowserVersion: 'unused' },
  );
}

function onlyPool<Kind extends PoolConfig['kind']>(
  kind: Kind,
  name: string,
  settings: Record<string, unknown>,
): Extract<PoolConfig, { kind: Kind }> {
  const pool = configWithOnePool(name, { ...settings, kind }).pools[name];
  if (pool?.kind !== kind) throw new Error(`expected pools.${name} to be a ${kind} pool`);
  return pool as Extract<PoolConfig, { kind: Kind }>;
}

/** The parsed ecs pool "fargate" with these settings. */
export const ecsPool = (settings: Record<string, unknown>): EcsPoolConfig =>
  onlyPool('ecs', 'fargate', settings);

/** The parsed eks pool "pods" with these settings. */
export const eksPool = (settings: Record<string, unknown>): EksPoolConfig =>
  onlyPool('eks', 'pods', settings);

/** The parsed local pool "local" with these settings. */
export const localPool = (settings: Record<string, unknown> = {}): LocalPoolConfig =>
  onlyPool('local', 'local', settings);
