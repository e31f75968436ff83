/** EKS Fargate's billed pod size: request plus 256 MB, rounded up to the nearest combination (EKS User Guide). */
import { describe, expect, it } from 'vitest';
import { fargatePodSize } from '../../../functions/pools/eks/eks-fargate-size';

describe('the size an EKS Fargate pod is billed as', () => {
  it.each([
    // The guide's own example: 1 vCPU and 8 GB become 2 vCPU and 9 GB, as no 1 vCPU size has 9 GB.
    ['1', '8Gi', { vcpu: 2, memoryGb: 9 }],
    // The default browser pod: 2 GiB + 256 MB does not fit 1 vCPU / 2 GB.
    ['1', '2Gi', { vcpu: 1, memoryGb: 3 }],
    ['500m', '1536Mi', { vcpu: 0.5, memoryGb: 2 }],
    ['250m', '256Mi', { vcpu: 0.25, memoryGb: 0.5 }],
    ['3', '4G', { vcpu: 4, memoryGb: 8 }],
    ['8', '20Gi', { vcpu: 8, memoryGb: 24 }],
    ['16', '100Gi', { vcpu: 16, memoryGb: 104 }],
  ])('cpu %s, memory %s', (cpu, memory, size) => {
    expect(fargatePodSize(cpu, memory)).toEqual(size);
  });

  it('has no size for a pod larger than the largest', () => {
    expect(fargatePodSize('32', '2Gi')).toBeUndefined();
    expect(fargatePodSize('16', '120Gi')).toBeUndefined();
  });
});
