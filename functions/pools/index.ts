/**
 * The registry of pool kinds: one line per kind. The entries read it to wire each kind in; the app gets its
 * traits (POOL_TRAITS) through GridDeps.poolTraits, never a kind's code.
 */
import type { Config, PoolConfig } from '../core/config';
import type { PoolTraitsByKind } from '../core/pool-traits';
import type { Logger } from '../core/ports';
import { containerPoolKind } from './container/container-pool-kind';
import { ecsPoolKind } from './ecs/ecs-pool-kind';
import { eksPoolKind } from './eks/eks-pool-kind';
import { hubPoolKind } from './hub/hub-pool-kind';
import { localPoolKind } from './local/local-pool-kind';
import type { CleanupMaker, PoolConfigOf, PoolKind, PoolKindName, RuntimeMakerOf } from './pool-kind';

const KINDS = {
  local: localPoolKind,
  hub: hubPoolKind,
  ecs: ecsPoolKind,
  eks: eksPoolKind,
  container: containerPoolKind,
};

export const POOL_KINDS: { readonly [K in PoolKindName]: PoolKind<K> } = KINDS;

/** A runtime maker per kind, in place of what the kind's `load()` answers (tests give fakes through it). */
export type RuntimeMakers = { [K in PoolKindName]?: RuntimeMakerOf<(typeof KINDS)[K]> };

/** A cleanup maker per kind, in place of what the kind's `cleanup.load()` answers (tests give fakes through it). */
export type CleanupMakers = { [K in PoolKindName]?: CleanupMaker };

/** The definition of the pool's kind, typed for that pool. */
export function poolKindOf<P extends PoolConfig>(pool: P): PoolKind<P['kind']> {
  // The registry is keyed by the discriminant the pool carries: the entry is its own kind's.
  return POOL_KINDS[pool.kind] as unknown as PoolKind<P['kind']>;
}

/** Every kind's run-time traits, for GridDeps.poolTraits. */
export const POOL_TRAITS = Object.fromEntries(
  (Object.values(POOL_KINDS) as PoolKind[]).map((kind) => [kind.name, kind.traits]),
  // Keyed by each kind's own name: every kind of the registry, so every key of the table.
) as PoolTraitsByKind;

/** The config's pools of one kind. */
export function poolsOfKind<K extends PoolKindName>(config: Config, kind: K): PoolConfigOf<K>[] {
  return Object.values(config.pools).filter((pool): pool is PoolConfigOf<K> => pool.kind === kind);
}

/** Makes this machine ready for the config's pools, kind by kind (a local pool's Chromium installed). */
export async function prepareForPools(config: Config, logger: Logger): Promise<void> {
  for (const kind of Object.values(POOL_KINDS) as PoolKind[]) {
    await kind.prepare?.(poolsOfKind(config, kind.name), logger);
  }
}

/** What the config's pools still lack to start browsers (the cloud pools' deployed settings), each naming its key. */
export function undeployedSettings(config: Config): string[] {
  return Object.values(config.pools).flatMap((pool) => poolKindOf(pool).undeployedSettings?.(pool) ?? []);
}
