/** The ecs pool kind: one Fargate (Spot) task per session, running a Selenium node. */
import { ecsPool } from '../../core/config-ecs-pool';
import type { PoolKind } from '../pool-kind';
import { checkEcsPool } from './ecs-pool-check';
import { ecsRecordsVideo } from './ecs-recordings';

export const ecsPoolKind: PoolKind<'ecs'> = {
  name: 'ecs',
  schema: ecsPool,
  traits: { remoteEnd: 'browser', boundToItsHead: false, recordsVideo: ecsRecordsVideo },
  undeployedSettings: checkEcsPool,
};
