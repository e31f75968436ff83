/**
 * The eks kind's runtime, loaded with its pools' first browser (eks-pool-kind.ts): a launcher per way a pool
 * authenticates, sharing one pod API per cluster with the reads of running pods' logs. EKS tokens are signed
 * with the process's AWS credentials, made with the first such pool's pod; a kubeconfig's client (the
 * Kubernetes client, megabytes) loads with the first pod of a pool that names one, which only the Node server
 * serves: the Lambdas' assets leave it out (entry/lambda-bundle-externals.ts), and their config refuses it.
 */
import type { EksPoolConfig } from '../../core/config';
import { onFirstUse } from '../../core/launcher-on-first-use';
import { madeOnFirstUse } from '../../core/made-on-first-use';
import type { KindRuntime, RuntimeContext } from '../pool-kind';
import { eksLauncherByAuth } from './eks-auth-launcher';
import { EksLauncher } from './eks-launcher';
import type { EksPodApi } from './eks-pod-api';
import { eksPodApis } from './eks-pod-apis';
import type { DeployedEksPool } from './eks-pool-check';
import type { EksPodApisByAuth } from './eks-recordings';
import { podLogKeeper } from './pod-log-keeper';

export interface EksRuntime extends KindRuntime<EksPoolConfig> {
  /** The pod API of each pool's cluster, by its `auth`, shared by the launcher and the log reads. */
  podApis: Required<EksPodApisByAuth>;
}

export async function makeEksRuntime(context: RuntimeContext): Promise<EksRuntime> {
  const { agent, logger, metrics, aws } = context;
  const podApis = {
    aws: madeOnFirstUse(async () => eksPodApis(await aws.identity())),
    kubeconfig: madeOnFirstUse(async () => (await import('./eks-kubeconfig')).kubeconfigPodApis()),
  };
  // A session's pod's browser log is copied to its pool's bucket before the pod is deleted.
  const keepLog = podLogKeeper(logger, aws.s3Client);
  const launcherWith = (pods: () => Promise<(pool: DeployedEksPool) => EksPodApi>) =>
    onFirstUse(async () => new EksLauncher({ podApi: await pods(), agent, logger, metrics, keepLog }));
  const launcher = eksLauncherByAuth({
    aws: launcherWith(podApis.aws),
    kubeconfig: launcherWith(podApis.kubeconfig),
  });
  return { runtime: { launcher }, podApis };
}
