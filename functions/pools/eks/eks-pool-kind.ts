/** The eks pool kind: one pod per session on an EKS (or any Kubernetes) cluster, running a Selenium node. */
import type { PoolKind } from '../pool-kind';
import { checkEksPool } from './eks-pool-check';
import { eksKept, eksRecordings, eksVideoPlace } from './eks-recordings';
import type { EksRuntime } from './eks-runtime';

export const eksPoolKind: PoolKind<'eks', EksRuntime> = {
  name: 'eks',
  traits: {
    remoteEnd: 'browser',
    boundToItsHead: false,
    recordsVideo: (pool) => eksVideoPlace(pool) !== undefined,
  },
  // Loaded with the first session on an eks pool, like ecs: a router Lambda's cold start never signs a token.
  load: async () => (await import('./eks-runtime')).makeEksRuntime,
  beforeLoad: ({ aws, poolOf }, loaded) => ({
    // Videos in the bucket its pool's recorder names, wherever gridgate runs; logs in their pods while they
    // run (through the runtime's pod APIs, loading it), and kept in that bucket after.
    artifacts: eksRecordings(poolOf, {
      s3Client: aws.s3Client,
      podApis: {
        aws: async () => (await loaded()).podApis.aws(),
        kubeconfig: async () => (await loaded()).podApis.kubeconfig(),
      },
    }),
  }),
  kept: eksKept,
  undeployedSettings: checkEksPool,
  // Pods outlive the router that started them: the cleanup deletes those no session holds.
  cleanup: { load: async () => (await import('./eks-cleanup')).makeEksCleanup },
};
