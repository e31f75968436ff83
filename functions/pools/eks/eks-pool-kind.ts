/** The eks pool kind: one pod per session on an EKS (or any Kubernetes) cluster, running a Selenium node. */
import { eksPool } from '../../core/config-eks-pool';
import type { PoolKind } from '../pool-kind';
import { checkEksPool } from './eks-pool-check';
import { eksVideoPlace } from './eks-recordings';

export const eksPoolKind: PoolKind<'eks'> = {
  name: 'eks',
  schema: eksPool,
  traits: {
    remoteEnd: 'browser',
    boundToItsHead: false,
    recordsVideo: (pool) => eksVideoPlace(pool) !== undefined,
  },
  undeployedSettings: checkEksPool,
  browsersArePods: true,
};
