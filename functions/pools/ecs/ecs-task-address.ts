/** What gridgate reads from an ECS task: its short ID, its private IP, and why it stopped. */
import type { Task } from '@aws-sdk/client-ecs';
import type { EcsLaunchStage } from './ecs-launch-stage';

const TASK_ID = /^[0-9a-f]{32}$/;

/**
 * The bare task ID from a task ARN ("arn:aws:ecs:r:a:task/cluster/<32 hex>"): the launcher handle, which
 * the session ID packs into 16 bytes, and which StopTask accepts together with the cluster.
 */
export function taskIdOf(taskArn: string): string {
  const id = taskArn.slice(taskArn.lastIndexOf('/') + 1);
  if (!TASK_ID.test(id)) throw new Error(`not a Fargate task ARN: ${taskArn}`);
  return id;
}

/** The private IPv4 address of the task's awsvpc ENI, once ECS has attached it. */
export function privateIpOf(task: Task): string | undefined {
  for (const attachment of task.attachments ?? []) {
    if (attachment.type !== 'ElasticNetworkInterface') continue;
    const detail = attachment.details?.find((d) => d.name === 'privateIPv4Address');
    if (detail?.value) return detail.value;
  }
  return undefined;
}

// Status names of a task on its way down (Fargate: DEACTIVATING → STOPPING → DEPROVISIONING → STOPPED).
const GOING_DOWN = new Set(['DEACTIVATING', 'STOPPING', 'DEPROVISIONING', 'STOPPED']);

export function isGoingDown(task: Task): boolean {
  return GOING_DOWN.has(task.lastStatus ?? '') || task.desiredStatus === 'STOPPED';
}

// ECS reports an image that cannot be fetched as CannotPullContainerError, or, for registry auth and
// secrets fetched before the pull, as "ResourceInitializationError: unable to pull …".
const PULL_ERROR = /CannotPullContainerError|ResourceInitializationError: unable to pull/i;

/** Why a task stopped before it ran, in ECS's own words, and which launch stage that was. */
export function stoppedReasonOf(task: Task): { stage: EcsLaunchStage; reason: string } {
  const reasons = [
    task.stoppedReason,
    ...(task.containers ?? []).map((c) => (c.reason ? `${c.name}: ${c.reason}` : undefined)),
  ].filter((reason): reason is string => Boolean(reason));
  const reason = reasons.join('; ') || `stopped (${task.stopCode ?? 'no reason given'})`;
  return { stage: reasons.some((r) => PULL_ERROR.test(r)) ? 'pull' : 'launch', reason };
}
