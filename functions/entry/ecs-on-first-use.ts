/**
 * The ecs launcher, made on first use like every AWS launcher (its SDK stays out of a cold start), that
 * also answers /status's warm count. The count is read from the launcher's warm-task store, so the first
 * count makes the launcher as a first session would, once per process or Lambda environment; /status asks
 * only for pools with a `warm` setting, so a grid without one never makes it for a count.
 */
import type { Launcher } from '../core/ports';
import { onFirstUse } from './aws-adapters';

export function ecsOnFirstUse(make: () => Promise<Launcher>): Launcher {
  let made: Promise<Launcher> | undefined;
  // Shared by sessions and counts; a failed load is not kept, like onFirstUse's own.
  const launcher = () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
  return {
    ...onFirstUse(launcher),
    warmCount: async (pool) => (await launcher()).warmCount?.(pool) ?? 0,
  };
}
