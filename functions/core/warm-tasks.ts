/**
 * Which pools keep warm tasks and where they live. The warm pool's ports: warm-task-store.ts (the tasks
 * waiting to be claimed) and warm-demand.ts (recent session starts, to size the pool from demand).
 */

import type { Config, PoolConfig } from './config';
import { configTraitsOf } from './config-traits-by-kind';

/** Whether a pool keeps warm tasks (an ecs pool whose `warm` has a max above 0): only those are claimed and counted. */
export function keepsWarmTasks(pool: PoolConfig): boolean {
  return configTraitsOf(pool).warmInStore?.(pool) ?? false;
}

/** The table warm tasks live in: the DynamoDB store's, when some pool keeps them; else none. */
export function warmTaskTable(config: Config): string | undefined {
  const some = Object.values(config.pools).some(keepsWarmTasks);
  return some && config.store.kind === 'dynamodb' ? config.store.table : undefined;
}
