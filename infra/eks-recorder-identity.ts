/**
 * What lets the video recorder in the pods of the config's `eks` pools upload to the recordings bucket, made
 * without kubectl: one IAM role that EKS Pod Identity hands out (trusted by pods.eks.amazonaws.com) and may
 * only put objects under videos/, and an EKS Pod Identity association per cluster, namespace and service
 * account of those pools giving it to their pods. The service accounts and the Pod Identity Agent add-on stay
 * the cluster owner's (docs/video-and-logs.md, "eks pools").
 */
import { Annotations } from 'aws-cdk-lib';
import { CfnPodIdentityAssociation } from 'aws-cdk-lib/aws-eks';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { EksPoolConfig } from '../functions/core/config';
import type { RecordingsBucket } from './recordings-bucket';

/** The service principal of EKS Pod Identity: the one a Pod Identity role's trust policy names. */
export const POD_IDENTITY_PRINCIPAL = 'pods.eks.amazonaws.com';

export interface EksRecorderIdentityProps {
  /** The config's eks pools that have a recorder. */
  pools: EksPoolConfig[];
  recordings: RecordingsBucket;
}

export class EksRecorderIdentity extends Construct {
  readonly role: Role;
  /** By "cluster/namespace/service account". */
  readonly associations: ReadonlyMap<string, CfnPodIdentityAssociation>;

  constructor(scope: Construct, id: string, props: EksRecorderIdentityProps) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      description: "gridgate's video recorders in eks pods: upload videos to the recordings bucket",
      // EKS Pod Identity assumes the role with session tags (the cluster, namespace, service account, pod).
      assumedBy: new ServicePrincipal(POD_IDENTITY_PRINCIPAL).withSessionTags(),
    });
    props.recordings.grantUpload(this.role);
    const associations = new Map<string, CfnPodIdentityAssociation>();
    for (const pool of props.pools) {
      const { recorder } = pool;
      if (!recorder) continue;
      const key = `${pool.cluster}/${pool.namespace}/${recorder.serviceAccount}`;
      if (associations.has(key)) continue;
      associations.set(
        key,
        new CfnPodIdentityAssociation(this, `Association-${key.replaceAll('/', '-')}`, {
          clusterName: pool.cluster,
          namespace: pool.namespace,
          serviceAccount: recorder.serviceAccount,
          roleArn: this.role.roleArn,
        }),
      );
      Annotations.of(this).addInfo(
        `gridgate: cluster "${pool.cluster}": create service account ${recorder.serviceAccount} in namespace ${pool.namespace} (kubectl create serviceaccount ${recorder.serviceAccount} -n ${pool.namespace}) and install the eks-pod-identity-agent add-on; the association gives its pods the recorder role but cannot create either`,
      );
    }
    this.associations = associations;
  }
}
