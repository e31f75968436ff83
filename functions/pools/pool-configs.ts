/**
 * Every pool kind's config side, one line per kind: its schema and its config-side traits. Pure, like each
 * kind's config module, so core builds the config's `pools` union (core/config-pools.ts) and its traits table
 * (core/config-traits-by-kind.ts) from it; the kind's runtime is listed apart (pools/index.ts).
 */
import { containerPoolConfig } from './container/container-pool-config';
import { ecsPoolConfig } from './ecs/ecs-pool-config';
import { eksPoolConfig } from './eks/eks-pool-config';
import { hubPoolConfig } from './hub/hub-pool-config';
import { localPoolConfig } from './local/local-pool-config';

export const POOL_CONFIGS = [
  localPoolConfig,
  hubPoolConfig,
  ecsPoolConfig,
  eksPoolConfig,
  containerPoolConfig,
] as const;
