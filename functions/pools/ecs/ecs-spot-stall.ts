/**
 * A Fargate Spot task that RunTask accepted but that never leaves PROVISIONING: ECS found no Spot capacity
 * to place it on and keeps trying, with no failure to say so (aws/containers-roadmap #880; "Amazon ECS task
 * lifecycle": PROVISIONING is "Amazon ECS has to perform additional steps before the task is launched", such
 * as the awsvpc network interface, seconds on Fargate). Past SPOT_PROVISIONING_LIMIT_MS the launcher stops it
 * and starts the session's task on on-demand Fargate, instead of running the new-session deadline out.
 */
import type { Task } from '@aws-sdk/client-ecs';

/**
 * Far past a normal PROVISIONING (an ENI attached in seconds), and short against the 3-minute default
 * new-session budget of ecs pools, which must still hold an on-demand task's whole cold start after it.
 */
export const SPOT_PROVISIONING_LIMIT_MS = 45_000;

export class SpotStalled extends Error {
  constructor(readonly taskArn: string) {
    super(`the Fargate Spot task ${taskArn} stayed PROVISIONING for ${SPOT_PROVISIONING_LIMIT_MS / 1000} s`);
    this.name = 'SpotStalled';
  }
}

/** Whether a task of a Spot-first launch, `waitedMs` after RunTask, has stalled in PROVISIONING on Spot. */
export function isSpotStalled(task: Task, waitedMs: number): boolean {
  return (
    task.capacityProviderName === 'FARGATE_SPOT' &&
    task.lastStatus === 'PROVISIONING' &&
    waitedMs > SPOT_PROVISIONING_LIMIT_MS
  );
}
