import { describe, expect, it } from 'vitest';
import { labelValue, podNameFor } from '../../../functions/pools/eks/eks-pod-spec';
import { podState } from '../../../functions/pools/eks/eks-pod-state';

const browser = (state: object) => ({ name: 'browser', state });

describe('podState', () => {
  it('is ready only when Running with an IP and the Ready condition True', () => {
    const running = { phase: 'Running', podIP: '10.1.2.3', conditions: [{ type: 'Ready', status: 'True' }] };
    expect(podState({ status: running })).toEqual({ state: 'ready', ip: '10.1.2.3' });
    expect(podState({ status: { ...running, podIP: undefined } })).toMatchObject({ state: 'waiting' });
    expect(podState({ status: { ...running, conditions: [{ type: 'Ready', status: 'False' }] } })).toEqual({
      state: 'waiting',
      stage: 'not ready',
      why: 'phase Running',
    });
  });

  it('waits through Unschedulable (an autoscaler may be adding a node) but names it', () => {
    const status = {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/2 nodes are available',
        },
      ],
    };
    expect(podState({ status })).toEqual({
      state: 'waiting',
      stage: 'unschedulable',
      why: '0/2 nodes are available',
    });
  });

  it('fails at once for an image that does not pull, a container that cannot start, or a pod that ended', () => {
    expect(
      podState({
        status: {
          phase: 'Pending',
          containerStatuses: [browser({ waiting: { reason: 'ImagePullBackOff', message: 'Back-off' } })],
        },
      }),
    ).toEqual({ state: 'failed', stage: 'pull', why: 'ImagePullBackOff: Back-off' });
    expect(
      podState({
        status: {
          phase: 'Pending',
          containerStatuses: [
            browser({ waiting: { reason: 'CreateContainerConfigError', message: 'secret "x" not found' } }),
          ],
        },
      }),
    ).toMatchObject({ state: 'failed', stage: 'not ready' });
    expect(
      podState({
        status: { phase: 'Failed', containerStatuses: [browser({ terminated: { reason: 'OOMKilled' } })] },
      }),
    ).toEqual({ state: 'failed', stage: 'not ready', why: 'the pod ended: OOMKilled' });
    expect(
      podState({ metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { phase: 'Running' } }),
    ).toMatchObject({
      state: 'failed',
      why: 'the pod is being deleted',
    });
  });
});

describe('pod names and labels', () => {
  it('names a pod gg-<key>-<random>, a DNS label short enough for the session ID', () => {
    expect(podNameFor('0123456789abcdef', () => 'a1b2c3')).toBe('gg-0123456789abcdef-a1b2c3');
    expect(podNameFor('Key_With/Odd.Chars', () => 'a1b2c3')).toBe('gg-keywithoddchars-a1b2c3');
  });

  it('makes any user name a valid label value', () => {
    expect(labelValue('ann@example.com')).toBe('ann_example.com');
    expect(labelValue('-dash-')).toBe('dash');
    expect(labelValue('x'.repeat(80))).toHaveLength(63);
  });
});
