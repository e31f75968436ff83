/**
 * What a pod's status says about a launch: ready (Running, an IP, Ready), still coming (and what it waits
 * for, which names the stage if the deadline passes), or failed for good (its image does not pull, it ended).
 */
import { CONTAINER, type Pod } from './eks-pod-spec';

export type PodState =
  | { state: 'ready'; ip: string }
  | { state: 'waiting'; stage: 'unschedulable' | 'not ready'; why: string }
  | { state: 'failed'; stage: 'pull' | 'not ready'; why: string };

// Waiting reasons that do not clear by themselves within a session's start-up time.
const PULL_FAILURES = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);
const START_FAILURES = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

export function podState(pod: Pod): PodState {
  const status = pod?.status ?? {};
  if (pod?.metadata?.deletionTimestamp) {
    return { state: 'failed', stage: 'not ready', why: 'the pod is being deleted' };
  }
  const container = (status.containerStatuses ?? []).find((c: Pod) => c.name === CONTAINER);
  const waiting = container?.state?.waiting;
  const terminated = container?.state?.terminated;
  if (status.phase === 'Failed' || status.phase === 'Succeeded' || terminated) {
    const why = terminated?.reason ?? status.reason ?? status.phase;
    const message = terminated?.message ?? status.message;
    return {
      state: 'failed',
      stage: 'not ready',
      why: `the pod ended: ${why}${message ? ` (${message})` : ''}`,
    };
  }
  if (waiting && PULL_FAILURES.has(waiting.reason)) {
    return {
      state: 'failed',
      stage: 'pull',
      why: `${waiting.reason}: ${waiting.message ?? pod.spec?.containers?.[0]?.image}`,
    };
  }
  if (waiting && START_FAILURES.has(waiting.reason)) {
    return { state: 'failed', stage: 'not ready', why: `${waiting.reason}: ${waiting.message ?? ''}` };
  }
  const scheduled = condition(pod, 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
    // Not final: a node autoscaler (Karpenter, Cluster Autoscaler) may be adding a node for it right now.
    return { state: 'waiting', stage: 'unschedulable', why: scheduled.message ?? 'no node fits the pod' };
  }
  if (status.phase === 'Running' && status.podIP && condition(pod, 'Ready')?.status === 'True') {
    return { state: 'ready', ip: status.podIP };
  }
  const detail = waiting?.reason ? `, container ${waiting.reason}` : '';
  return { state: 'waiting', stage: 'not ready', why: `phase ${status.phase ?? 'unknown'}${detail}` };
}

function condition(
  pod: Pod,
  type: string,
): { status?: string; reason?: string; message?: string } | undefined {
  return (pod?.status?.conditions ?? []).find((c: Pod) => c.type === type);
}
