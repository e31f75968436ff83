/** The ecs pool kind: one Fargate (Spot) task per session, running a Selenium node. */
import type { PoolKind } from '../pool-kind';
import { checkEcsPool } from './ecs-pool-check';
import { ecsPool } from './ecs-pool-config';

export const ecsPoolKind: PoolKind<'ecs'> = {
  name: 'ecs',
  schema: ecsPool,
  traits: { remoteEnd: 'browser', boundToItsHead: false },
  undeployedSettings: checkEcsPool,
};
