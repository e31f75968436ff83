/**
 * What a pod on an EKS Fargate profile is billed as: Fargate adds 256 MB to the pod's memory request for
 * Kubernetes' own components (kubelet, kube-proxy, containerd) and rounds the request up to the nearest of
 * its vCPU and memory combinations ("Understand Fargate Pod configuration details", Amazon EKS User
 * Guide). Pure: the billing the eks launcher puts in a Fargate pod's session record, which core/session-cost.ts
 * prices.
 */

/** Fargate's combinations: per vCPU, the memory (GB) from, to, in steps of. */
const SIZES: { vcpu: number; memoryGb: number[] }[] = [
  { vcpu: 0.25, memoryGb: [0.5, 1, 2] },
  { vcpu: 0.5, memoryGb: [1, 2, 3, 4] },
  { vcpu: 1, memoryGb: range(2, 8, 1) },
  { vcpu: 2, memoryGb: range(4, 16, 1) },
  { vcpu: 4, memoryGb: range(8, 30, 1) },
  { vcpu: 8, memoryGb: range(16, 60, 4) },
  { vcpu: 16, memoryGb: range(32, 120, 8) },
];
const KUBERNETES_COMPONENTS_GB = 0.25;

export interface FargatePodSize {
  vcpu: number;
  memoryGb: number;
}

/**
 * The size a pod requesting `cpu` and `memory` (Kubernetes quantities: "500m", "1", "2Gi", "1536Mi") is
 * billed as; undefined when it asks for more than the largest size (Fargate does not schedule it).
 */
export function fargatePodSize(cpu: string, memory: string): FargatePodSize | undefined {
  const vcpu = cpuCores(cpu);
  const memoryGb = memoryBytes(memory) / 2 ** 30 + KUBERNETES_COMPONENTS_GB;
  for (const size of SIZES) {
    if (size.vcpu < vcpu) continue;
    const fits = size.memoryGb.find((gb) => gb >= memoryGb);
    if (fits !== undefined) return { vcpu: size.vcpu, memoryGb: fits };
  }
  return undefined;
}

const SUFFIX_BYTES: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

function cpuCores(quantity: string): number {
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity);
}

function memoryBytes(quantity: string): number {
  const [, amount = '0', suffix = ''] = /^([\d.]+)([A-Za-z]*)$/.exec(quantity) ?? [];
  return Number(amount) * (SUFFIX_BYTES[suffix] ?? Number.NaN);
}

function range(from: number, to: number, step: number): number[] {
  return Array.from({ length: (to - from) / step + 1 }, (_, i) => from + i * step);
}
