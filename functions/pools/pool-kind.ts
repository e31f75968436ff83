/**
 * A pool kind as one plain object: its config's schema, its run-time traits and the parts the entries ask
 * of it before any browser starts. One per kind (pools/<kind>/<kind>-pool-kind.ts), listed in pools/index.ts.
 */
import type * as z from 'zod';
import type { PoolConfig } from '../core/config';
import type { PoolTraits } from '../core/pool-traits';
import type { Logger } from '../core/ports';

export type PoolKindName = PoolConfig['kind'];
export type PoolConfigOf<K extends PoolKindName> = Extract<PoolConfig, { kind: K }>;

export interface PoolKind<K extends PoolKindName = PoolKindName> {
  readonly name: K;
  /** Its config's schema (<kind>-pool-config.ts): one option of the config's `pools` union (pools/pool-configs.ts). */
  readonly schema: z.ZodType;
  /** What the use cases and servers know of it at run time (core/pool-traits.ts). */
  readonly traits: PoolTraits;
  /** What a pool of this kind still lacks to start browsers (settings the deployment fills in), each naming its key. */
  undeployedSettings?(pool: PoolConfigOf<K>): string[];
  /** Makes this machine ready for the config's pools of this kind before the server starts (installs what they run). */
  prepare?(pools: PoolConfigOf<K>[], logger: Logger): Promise<void>;
  /** Its browsers are Kubernetes pods: the scheduled cleanup needs a pod API to find and end them. */
  readonly browsersArePods?: boolean;
}
