/** The settings an eks pool needs before it can start pods, which the config schema leaves to the deployment. */
import type { EksPoolConfig } from '../../core/config';

const DEPLOYED_KEYS = ['endpoint', 'networks'] as const;

/** An eks pool with everything the pod calls and the address check need. */
export type DeployedEksPool = EksPoolConfig & Required<Pick<EksPoolConfig, (typeof DEPLOYED_KEYS)[number]>>;

/** Every missing setting, each naming its config path; empty when the pool is complete. */
export function checkEksPool(pool: EksPoolConfig): string[] {
  return DEPLOYED_KEYS.filter((key) => pool[key] === undefined).map(
    (key) => `pools.${pool.name}.${key}: not set (the CDK app sets it for the cluster it imports)`,
  );
}

export function isDeployedEks(pool: EksPoolConfig): pool is DeployedEksPool {
  return checkEksPool(pool).length === 0;
}
