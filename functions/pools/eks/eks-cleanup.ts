/**
 * The eks kind's part of the scheduled cleanup: its pods as a fleet (eks-fleet.ts), reached through each
 * cluster's pod API with EKS tokens signed by the process's credentials, a session's pod having its browser
 * log kept before it is deleted, as at a DELETE; and the buckets its pools' recorders name. The pod API and
 * the token signer load here, with the cleanup of a config that has eks pools.
 */
import type { CleanupContext, KindCleanup } from '../pool-kind';
import { EksFleet } from './eks-fleet';
import type { EksPodApi } from './eks-pod-api';
import { eksPodApis } from './eks-pod-apis';
import type { DeployedEksPool } from './eks-pool-check';
import { eksVideoPlace } from './eks-recordings';
import { type KeepPodLog, podLogKeeper } from './pod-log-keeper';

/** How the cleanup reaches an eks pool's pods, and keeps a session's pod's browser log. */
export interface PodsToClean {
  api: (pool: DeployedEksPool) => EksPodApi;
  keepLog: KeepPodLog;
}

/** `pods`: made once per process from the context's AWS identity; tests give a fake cluster's. */
export async function makeEksCleanup(context: CleanupContext, pods?: PodsToClean): Promise<KindCleanup> {
  const { api, keepLog } = pods ?? {
    api: eksPodApis(await context.aws.identity()),
    keepLog: podLogKeeper(context.logger),
  };
  return { fleet: () => new EksFleet(api, keepLog), videoPlace: eksVideoPlace };
}
