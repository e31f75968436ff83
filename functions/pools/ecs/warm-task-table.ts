/**
 * Where ecs pools' warm tasks live: the table of the shared DynamoDB store, when some pool keeps them. The warm
 * pool's ports: core/warm-task-store.ts (the tasks waiting to be claimed) and core/warm-demand.ts (recent
 * session starts, to size the pool from demand).
 */
import type { Config } from '../../core/config';
import { keepsWarmTasks } from './ecs-pool-config';

/** The table warm tasks live in: the DynamoDB store's, when some pool keeps them; else none. */
export function warmTaskTable(config: Config): string | undefined {
  const some = Object.values(config.pools).some((pool) => pool.kind === 'ecs' && keepsWarmTasks(pool));
  return some && config.store.kind === 'dynamodb' ? config.store.table : undefined;
}
