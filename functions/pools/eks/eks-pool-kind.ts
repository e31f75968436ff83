/** The eks pool kind: one pod per session on an EKS (or any Kubernetes) cluster, running a Selenium node. */
import type { PoolKind } from '../pool-kind';
import { checkEksPool } from './eks-pool-check';
import { eksPool } from './eks-pool-config';

export const eksPoolKind: PoolKind<'eks'> = {
  name: 'eks',
  schema: eksPool,
  traits: { remoteEnd: 'browser', boundToItsHead: false },
  undeployedSettings: checkEksPool,
  browsersArePods: true,
};
