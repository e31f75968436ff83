/**
 * Fargate Spot's 2-minute notice, as EventBridge delivers it ("ECS Task State Change" with stopCode
 * SpotInterruption): notes the browser as reclaimed so its session's next command says so instead of
 * timing out (DESIGN "Spot"; aws-constraints 5.6). The cleanup later ends the record and frees the slot.
 */
import type { Config, EcsPoolConfig } from '../../core/config';
import { isSpotReclaim } from '../../core/orphan-decisions';
import type { Clock, Logger, Metrics, SessionStore } from '../../core/ports';
import { taskIdOf } from './ecs-task-lister';
import { STARTED_BY } from './task-tags';

/** The part of the event this handler reads; the rest of ECS's task detail passes unread. */
export interface TaskStateChangeEvent {
  source?: unknown;
  'detail-type'?: unknown;
  time?: unknown;
  detail?: {
    taskArn?: unknown;
    clusterArn?: unknown;
    taskDefinitionArn?: unknown;
    startedBy?: unknown;
    stopCode?: unknown;
    stoppingAt?: unknown;
  };
}

export interface SpotInterruptionDeps {
  sessions: SessionStore;
  metrics: Metrics;
  logger: Logger;
  clock: Clock;
  /** To name the pool of the SpotInterruptions metric (the event carries no tags). */
  config: Config;
}

export type InterruptionOutcome =
  /** Not a Spot notice for one of gridgate's tasks. */
  | { outcome: 'ignored' }
  /** Noted, or noted before: a task sends one event per state on its way down, and EventBridge may repeat any. */
  | { outcome: 'marked' | 'already marked'; handle: string; pool: string | undefined };

export async function handleTaskStateChange(
  deps: SpotInterruptionDeps,
  event: TaskStateChangeEvent,
): Promise<InterruptionOutcome> {
  const detail = event?.detail;
  if (
    event?.source !== 'aws.ecs' ||
    event['detail-type'] !== 'ECS Task State Change' ||
    detail?.startedBy !== STARTED_BY ||
    typeof detail.stopCode !== 'string' ||
    !isSpotReclaim(detail.stopCode) ||
    typeof detail.taskArn !== 'string'
  ) {
    return { outcome: 'ignored' };
  }
  const handle = taskIdOf(detail.taskArn);
  const pool = poolOfTask(deps.config, detail.clusterArn, detail.taskDefinitionArn)?.name;
  // Counted once per task: the first event marks it, the later ones (STOPPING, STOPPED, repeats) find it marked.
  if (await deps.sessions.reclaimed(handle)) return { outcome: 'already marked', handle, pool };
  const at = instant(detail.stoppingAt) ?? instant(event.time) ?? deps.clock.now();
  await deps.sessions.markReclaimed(handle, { at, reason: detail.stopCode });
  deps.metrics.count('SpotInterruptions', pool ? { pool } : {});
  deps.logger.log('BROWSER_RECLAIMED', {
    handle,
    pool,
    reason: detail.stopCode,
    at: new Date(at).toISOString(),
  });
  return { outcome: 'marked', handle, pool };
}

/**
 * The ecs pool the task ran in, from its cluster and task definition; undefined when no pool, or more
 * than one, fits. Pools name clusters and task definitions by name or ARN, events always by ARN.
 */
export function poolOfTask(
  config: Config,
  clusterArn: unknown,
  taskDefinitionArn: unknown,
): EcsPoolConfig | undefined {
  if (typeof clusterArn !== 'string') return undefined;
  const inCluster = Object.values(config.pools).filter(
    (pool): pool is EcsPoolConfig => pool.kind === 'ecs' && namesArn(pool.cluster ?? 'default', clusterArn),
  );
  if (inCluster.length <= 1) return inCluster[0];
  if (typeof taskDefinitionArn !== 'string') return undefined;
  const matching = inCluster.filter(
    (pool) =>
      pool.taskDefinition !== undefined && namesTaskDefinition(pool.taskDefinition, taskDefinitionArn),
  );
  return matching.length === 1 ? matching[0] : undefined;
}

/** "name" or the ARN itself names "arn:…:cluster/name". */
function namesArn(nameOrArn: string, arn: string): boolean {
  return nameOrArn === arn || arn.endsWith(`/${nameOrArn}`);
}

/** "family", "family:revision" or the ARN names "arn:…:task-definition/family:revision". */
function namesTaskDefinition(configured: string, arn: string): boolean {
  const familyRevision = arn.slice(arn.lastIndexOf('/') + 1);
  return configured === arn || configured === familyRevision || configured === familyRevision.split(':')[0];
}

function instant(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
