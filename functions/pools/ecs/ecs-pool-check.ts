/** The settings an ecs pool needs before it can start tasks, which the config schema leaves to the CDK app. */
import type { EcsPoolConfig } from '../../core/config';

const DEPLOYED_KEYS = ['cluster', 'taskDefinition', 'subnets', 'securityGroups', 'networks'] as const;

/** An ecs pool with everything RunTask and the address check need. */
export type DeployedEcsPool = EcsPoolConfig & Required<Pick<EcsPoolConfig, (typeof DEPLOYED_KEYS)[number]>>;

/**
 * Every missing setting, each naming its config path ("pools.fargate.cluster: …"), so an entry can refuse
 * a config at load time and a launch can say why it cannot start. Empty when the pool is complete.
 */
export function checkEcsPool(pool: EcsPoolConfig): string[] {
  return DEPLOYED_KEYS.filter((key) => pool[key] === undefined).map(
    (key) => `pools.${pool.name}.${key}: not set (the CDK app sets it for the pools it deploys)`,
  );
}

export function isDeployed(pool: EcsPoolConfig): pool is DeployedEcsPool {
  return checkEcsPool(pool).length === 0;
}
