/** The settings an eks pool needs before it can start pods, which the config schema leaves optional. */
import type { EksPoolConfig } from '../../core/config';

type Recorder = NonNullable<EksPoolConfig['recorder']>;

/** An eks pool with everything the pod calls, the address check and its recorder's upload need. */
export type DeployedEksPool = EksPoolConfig &
  Required<Pick<EksPoolConfig, 'networks'>> & {
    recorder?: Recorder & Required<Pick<Recorder, 'bucket' | 'region'>>;
  };

const WHERE = {
  endpoint: '`aws eks describe-cluster` tells it: cluster.endpoint',
  networks: "the CIDR blocks of the pods' IPs; with the VPC CNI, the cluster VPC's",
} as const;

const RECORDER_WHERE = {
  bucket: 'the S3 bucket the recorder uploads videos to; the CDK app sets its recordings bucket',
  region: "the bucket's Region; the CDK app sets it",
} as const;

/** Every missing setting, each naming its config path; empty when the pool is complete. */
export function checkEksPool(pool: EksPoolConfig): string[] {
  // A kubeconfig names its own server; an EKS token needs the endpoint from the config.
  const keys = pool.auth === 'aws' ? (['endpoint', 'networks'] as const) : (['networks'] as const);
  const recorder = pool.recorder;
  return [
    ...keys
      .filter((key) => pool[key] === undefined)
      .map((key) => `pools.${pool.name}.${key}: not set (${WHERE[key]})`),
    ...(recorder
      ? (['bucket', 'region'] as const)
          .filter((key) => recorder[key] === undefined)
          .map((key) => `pools.${pool.name}.recorder.${key}: not set (${RECORDER_WHERE[key]})`)
      : []),
  ];
}

export function isDeployedEks(pool: EksPoolConfig): pool is DeployedEksPool {
  return checkEksPool(pool).length === 0;
}
