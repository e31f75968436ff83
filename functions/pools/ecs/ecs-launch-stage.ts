/** Where an ECS launch failed, carried by the error so the new-session path can retry elsewhere and count it. */
import { type AttemptOutcome, LaunchFailure } from '../../core/host-choice';

/**
 * config: the pool lacks a setting; capacity: no Fargate capacity even after the fallback; launch: RunTask
 * failed or the task stopped before RUNNING; pull: the image could not be pulled; driver: no ready
 * WebDriver /status before the deadline.
 */
export type EcsLaunchStage = 'config' | 'capacity' | 'launch' | 'pull' | 'driver';

export class EcsLaunchFailure extends LaunchFailure {
  constructor(
    readonly stage: EcsLaunchStage,
    details: string,
    options?: { cause?: unknown },
  ) {
    // A broken pool config is this pool's problem alone; anything else may be the region's, so the
    // next attempt goes elsewhere (core/host-choice).
    const outcome: AttemptOutcome = stage === 'config' ? 'refused' : 'unreachable';
    super(outcome, `${stage}: ${details}`, '', options);
    this.name = 'EcsLaunchFailure';
  }
}
