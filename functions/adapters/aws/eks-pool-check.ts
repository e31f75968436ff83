/** The settings an eks pool needs before it can start pods, which the config schema leaves optional. */
import type { EksPoolConfig } from '../../core/config';

/** An eks pool with everything the pod calls and the address check need. */
export type DeployedEksPool = EksPoolConfig & Required<Pick<EksPoolConfig, 'networks'>>;

const WHERE = {
  endpoint: '`aws eks describe-cluster` tells it: cluster.endpoint',
  networks: "the CIDR blocks of the pods' IPs; with the VPC CNI, the cluster VPC's",
} as const;

/** Every missing setting, each naming its config path; empty when the pool is complete. */
export function checkEksPool(pool: EksPoolConfig): string[] {
  // A kubeconfig names its own server; an EKS token needs the endpoint from the config.
  const keys = pool.auth === 'aws' ? (['endpoint', 'networks'] as const) : (['networks'] as const);
  return keys
    .filter((key) => pool[key] === undefined)
    .map((key) => `pools.${pool.name}.${key}: not set (${WHERE[key]})`);
}

export function isDeployedEks(pool: EksPoolConfig): pool is DeployedEksPool {
  return checkEksPool(pool).length === 0;
}
