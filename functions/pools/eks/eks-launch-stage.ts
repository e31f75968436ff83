/** Where an EKS launch failed, carried by the error so the new-session path can retry elsewhere and count it. */
import { type AttemptOutcome, LaunchFailure } from '../../core/host-choice';

/**
 * config: the pool lacks a setting; create: the Kubernetes API refused or failed the pod; unschedulable: no
 * node took the pod before the deadline; pull: its image could not be pulled; not ready: the pod did not
 * run and become ready before the deadline, or ended; driver: no ready WebDriver /status before the deadline.
 */
export type EksLaunchStage = 'config' | 'create' | 'unschedulable' | 'pull' | 'not ready' | 'driver';

export class EksLaunchFailure extends LaunchFailure {
  constructor(
    readonly stage: EksLaunchStage,
    details: string,
    options?: { cause?: unknown },
  ) {
    // A broken pool config is this pool's problem alone; anything else may be the cluster's, so the next
    // attempt goes elsewhere (core/host-choice).
    const outcome: AttemptOutcome = stage === 'config' ? 'refused' : 'unreachable';
    super(outcome, `${stage}: ${details}`, '', options);
    this.name = 'EksLaunchFailure';
  }
}
