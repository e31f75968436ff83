/**
 * The pod API of each eks pool's cluster, made once per cluster and reused by every launch and stop: the
 * endpoint and CA the deployment put in the pool, and a cached EKS token signed with the process's AWS
 * credentials (mapped to a namespaced policy by the cluster's EKS access entry).
 */
import type { AwsCredentialIdentity } from '@smithy/types';
import type { EksPoolConfig } from '../../core/config';
import type { Clock } from '../../core/ports';
import { type EksPodApi, KubernetesPodApi } from './eks-pod-api';
import type { DeployedEksPool } from './eks-pool-check';
import { eksTokenProvider } from './eks-token';

export interface EksPodApisOptions {
  /** The SDK's credential provider (e.g. an SDK client's config.credentials). */
  credentials: () => Promise<AwsCredentialIdentity>;
  /** Used when the endpoint does not name its region (EKS endpoints do: "….gr7.<region>.eks.amazonaws.com"). */
  region: string;
  clock?: Clock;
}

const EKS_ENDPOINT_REGION = /\.([a-z]{2}(?:-[a-z]+)+-\d)\.eks\.amazonaws\.com(?:\.cn)?$/;

export function eksPodApis(options: EksPodApisOptions): (pool: DeployedEksPool) => EksPodApi {
  const apis = new Map<string, EksPodApi>();
  return (pool) => {
    // The launcher checked this (eks-pool-check.ts); a kubeconfig pool never reaches here.
    if (pool.endpoint === undefined) throw new Error(`pools.${pool.name}.endpoint: not set`);
    const id = `${pool.cluster} ${pool.endpoint} ${pool.certificateAuthority ?? ''}`;
    let api = apis.get(id);
    if (!api) {
      api = new KubernetesPodApi({
        endpoint: pool.endpoint,
        ca: pool.certificateAuthority
          ? Buffer.from(pool.certificateAuthority, 'base64').toString('utf8')
          : undefined,
        token: eksTokenProvider({
          cluster: pool.cluster,
          region: regionOf(pool, options.region),
          credentials: options.credentials,
          clock: options.clock,
        }),
      });
      apis.set(id, api);
    }
    return api;
  };
}

/** The cluster's region: from its EKS endpoint's host name, else the process's own. */
export function regionOf(pool: Pick<EksPoolConfig, 'endpoint'>, fallback: string): string {
  const host = pool.endpoint ? new URL(pool.endpoint).hostname : '';
  return EKS_ENDPOINT_REGION.exec(host)?.[1] ?? fallback;
}
