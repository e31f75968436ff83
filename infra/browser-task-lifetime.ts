/**
 * The hard lifetime of an ecs pool's browser task: the browser container's command runs docker-selenium's
 * own entry point under coreutils `timeout`, so the container exits once the task has outlived any session
 * it could hold (core/browser-lifetime.ts), and the task with it, since the browser container is essential
 * ("Amazon ECS task definition parameters": essential, "If the essential parameter of a container is marked
 * as true, and that container fails or stops for any reason, all other containers that are part of the task
 * are stopped"). It holds with every gridgate process and the cleanup gone: a leaked docker-selenium task
 * otherwise runs, and is billed, until someone stops it. Replacing the command keeps the image's ENTRYPOINT.
 */
import type { Duration } from 'aws-cdk-lib';
import {
  browserInUseMs,
  hardLifetimeSeconds,
  type LifetimeTimeouts,
} from '../functions/core/browser-lifetime';
import type { EcsPoolConfig } from '../functions/core/config';

/** docker-selenium's CMD in every node and standalone image (NodeBase, Standalone Dockerfiles). */
export const DOCKER_SELENIUM_ENTRY_POINT = '/opt/bin/entry_point.sh';

/** The longest a pool's task lives, in whole seconds: its warm wait (if it keeps warm tasks) counts too. */
export function taskLifetimeSeconds(pool: EcsPoolConfig, timeouts: LifetimeTimeouts): number {
  const warmIdle = (pool.warm?.max ?? 0) > 0 ? (pool.warm?.idleTtl ?? 0) : 0;
  return hardLifetimeSeconds(browserInUseMs(timeouts, warmIdle));
}

/**
 * The browser container's command: the entry point, sent SIGTERM after `seconds` (supervisord then stops the
 * node and Chrome) and SIGKILL `stopTimeout` later if it has not exited by then.
 */
export function selfEndingCommand(seconds: number, stopTimeout: Duration): string[] {
  return ['timeout', `--kill-after=${stopTimeout.toSeconds()}s`, `${seconds}s`, DOCKER_SELENIUM_ENTRY_POINT];
}
