/**
 * How /status counts an ecs pool's warm tasks: the idle ones in the warm-task store, the count
 * EcsLauncher.warmCount makes, read without loading the ECS SDK (a large part of a cold start).
 */
import type { WarmCounter } from '../../core/pool-runtime';
import { idleWarmTasks, type WarmTaskStore } from '../../core/warm-task-store';

/** `warmTable`: the table the launcher claims from (none: it claims none, and counts 0). */
export function ecsStoredWarmCount(
  warmTasks: (table: string) => Promise<WarmTaskStore>,
  warmTable: string | undefined,
): WarmCounter {
  if (warmTable === undefined) return { warmCount: async () => 0 };
  return { warmCount: async (pool) => idleWarmTasks(await warmTasks(warmTable), pool) };
}
