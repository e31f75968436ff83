/**
 * Each pool kind's config-side traits (pool-config-traits.ts) by kind, gathered from the kinds' config modules
 * (pools/pool-configs.ts): how local, hub, ecs, eks and container pools differ where only their config is known.
 */
import { POOL_CONFIGS } from '../pools/pool-configs';
import type { PoolConfig } from './config-pools';
import type { PoolConfigTraits } from './pool-config-traits';

// Each kind's traits under the name its schema's `kind` literal gives it.
const CONFIG_TRAITS: ReadonlyMap<string, PoolConfigTraits<PoolConfig>> = new Map(
  POOL_CONFIGS.map((kind) => [kind.schema.shape.kind.value, kind.traits]),
);

/** The config-side traits of the pool's kind, typed for that pool. */
export function configTraitsOf<P extends PoolConfig>(pool: P): PoolConfigTraits<P> {
  // The table is keyed by the same discriminant the pool carries, so the entry is the pool's own kind's.
  return CONFIG_TRAITS.get(pool.kind) as PoolConfigTraits<P>;
}

/** The traits of a kind named in a config as written (not yet parsed): undefined for a name that is no kind. */
export function configTraitsNamed(kind: unknown): PoolConfigTraits<PoolConfig> | undefined {
  return typeof kind === 'string' ? CONFIG_TRAITS.get(kind) : undefined;
}
