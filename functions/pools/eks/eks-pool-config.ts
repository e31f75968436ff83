/**
 * The config of an eks pool: one Kubernetes pod per session on an EKS cluster; and what gridgate knows of eks
 * pools from their config alone. Pure, so the config's `pools` union (core/config-pools.ts) is built from it.
 */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { containerPorts, poolCommon, recorderImage } from '../../core/config-pool-common';
import { cidr } from '../../core/config-values';
import { poolConfigKind } from '../../core/pool-config-traits';
import { seleniumNodeConfigTraits } from '../selenium-node/selenium-node-pool-config';

// Kubernetes names and label values (a DNS-1123 label; a label value may also hold "_" and ".").
const dnsLabel = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be 1–63 lower-case letters, digits or "-"');
const labelKey = z
  .string()
  .regex(
    /^([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/,
    'must be a Kubernetes label key such as "team" or "example.com/team"',
  );
const labelValue = z
  .string()
  .regex(
    /^([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$/,
    'must be a Kubernetes label value: up to 63 letters, digits, "-", "_" or ".", starting and ending alphanumeric',
  );
// A resource quantity such as "500m", "1", "2Gi" (the usual subset of Kubernetes' quantity grammar).
const quantity = z
  .string()
  .regex(
    /^\d+(\.\d+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/,
    'must be a Kubernetes quantity such as "500m", "1" or "2Gi"',
  );

// A service account's name: a DNS subdomain (kubernetes.io "Object Names and IDs").
const dnsSubdomain = z
  .string()
  .max(253)
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    'must be lower-case letters, digits, "-" and "." (a DNS subdomain)',
  );

/** docker-selenium's video recorder as a second container of every pod, and where it uploads. */
const podRecorder = z.strictObject({
  image: recorderImage,
  serviceAccount: dnsSubdomain.default('gridgate-recorder').meta({
    description:
      "The pods' service account, which the cluster owner creates in the pool's namespace: the CDK app's EKS Pod Identity association gives it the role that may upload videos to the recordings bucket.",
  }),
  // docker-selenium's Helm chart gives its recorder 1 CPU and 1 GiB (videoRecorder.resources).
  cpu: quantity.default('1').meta({ description: "CPU request (and limit) of the recorder's container." }),
  memory: quantity
    .default('1Gi')
    .meta({ description: "Memory request (and limit) of the recorder's container." }),
  bucket: z.string().min(3).optional().meta({
    description:
      'The S3 bucket videos are uploaded to, under videos/. The CDK app sets its recordings bucket.',
  }),
  region: z.string().min(1).optional().meta({ description: "The bucket's Region. The CDK app sets it." }),
});

const toleration = z
  .strictObject({
    key: z.string().min(1).optional(),
    operator: z.enum(['Equal', 'Exists']).default('Equal'),
    value: z.string().optional(),
    effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  })
  .meta({ description: 'A pod toleration, e.g. for the taint of a Spot node pool.' });

export const eksPool = z
  .strictObject({
    kind: z.literal('eks'),
    ...poolCommon,
    cluster: z.string().min(1).meta({ description: 'EKS cluster name (signed into the API token).' }),
    endpoint: z
      .url({ protocol: /^https$/, error: 'must be an https URL' })
      .optional()
      .meta({
        description:
          'The cluster\'s Kubernetes API URL (`aws eks describe-cluster`: cluster.endpoint). Needed with auth "aws".',
      }),
    certificateAuthority: z.string().min(1).optional().meta({
      description:
        'The cluster\'s CA certificate, base64-encoded PEM (cluster.certificateAuthority.data). Needed with auth "aws".',
    }),
    namespace: dnsLabel.default('gridgate').meta({ description: 'Namespace the browser pods run in.' }),
    image: z
      .string()
      .min(1)
      .default('selenium/standalone-chrome:latest')
      .meta({ description: 'Browser image of the pods (a docker-selenium standalone image).' }),
    cpu: quantity.default('1').meta({ description: 'CPU request (and limit) of each browser pod.' }),
    memory: quantity.default('2Gi').meta({ description: 'Memory request (and limit) of each browser pod.' }),
    fargate: z.boolean().default(false).meta({
      description:
        "The pods run on an EKS Fargate profile: each ended session's record carries its estimated cost (the pod billed as Fargate sizes it, on-demand). Pods on nodes have none: their price is the node's.",
    }),
    nodeSelector: z
      .record(labelKey, labelValue)
      .default({})
      .meta({ description: 'Node labels the pods need, e.g. {"karpenter.sh/capacity-type": "spot"}.' }),
    tolerations: z.array(toleration).default([]).meta({ description: 'Taints the pods tolerate.' }),
    labels: z
      .record(labelKey, labelValue)
      .default({})
      .meta({ description: "Extra labels on every pod (gridgate's own labels win)." }),
    ...containerPorts,
    networks: z.array(cidr).min(1).optional().meta({
      description:
        "CIDR blocks the pods' IPs lie in (with the VPC CNI, the cluster VPC's CIDR); session IDs naming any other address are refused.",
    }),
    auth: z.enum(['aws', 'kubeconfig'], { error: 'must be "aws" or "kubeconfig"' }).default('aws').meta({
      description:
        '"aws": an EKS token signed with the router\'s AWS credentials (an EKS access entry maps its role). "kubeconfig" (Node server only): the server, CA and credentials of a kubeconfig context (tokens, client certificates, exec plugins such as `aws eks get-token`).',
    }),
    kubeconfig: z.string().min(1).optional().meta({
      description:
        'With auth "kubeconfig": the kubeconfig file. Default: $KUBECONFIG, else ~/.kube/config, else the in-cluster service account.',
    }),
    context: z.string().min(1).optional().meta({
      description: 'With auth "kubeconfig": the context to use. Default: the file\'s current-context.',
    }),
    securityGroup: z
      .string()
      .regex(/^sg-[0-9a-f]{8,17}$/, 'must be a security group ID such as "sg-0123456789abcdef0"')
      .optional()
      .meta({
        description:
          "For the CDK app: the security group on the pods' nodes and the API endpoint (the EKS cluster security group, resourcesVpcConfig.clusterSecurityGroupId); it admits the router to `port` and 443.",
      }),
    logBucket: z
      .strictObject({
        bucket: z.string().min(3).meta({ description: 'The S3 bucket; logs go under logs/.' }),
        region: z.string().min(1).meta({ description: "The bucket's Region." }),
      })
      .optional()
      .meta({
        description:
          "Where ended sessions' browser logs are kept (logs/{session}.log), copied from each pod before it is deleted. The CDK app sets its recordings bucket. Absent: the recorder's bucket, or none (a session's log is served only while its pod runs).",
      }),
    recorder: podRecorder.optional().meta({
      description:
        "docker-selenium's video recorder beside the browser in every pod, uploading the videos of sessions that ask (or of all, with video) to the recordings bucket; absent: no videos.",
    }),
  })
  // EKS Pod Identity, which gives the recorder its credentials, is not available on Fargate.
  .refine((pool) => !(pool.fargate && pool.recorder), {
    message:
      'a recorder needs pods on nodes: EKS Pod Identity (its upload credentials) is not available on Fargate',
    path: ['recorder'],
  })
  .meta({ description: 'One Kubernetes pod per session on an EKS cluster.' });

export const eksPoolConfig = poolConfigKind(eksPool, {
  ...seleniumNodeConfigTraits,
  keepsWarm: () => false,
  // The kubeconfig client (@kubernetes/client-node, megabytes) is left out of every Lambda's asset
  // (entry/lambda-bundle-externals.ts): refused before any session rather than a pod failing on a missing module.
  notOnAws: (pool) =>
    pool.auth === 'aws'
      ? []
      : [
          `pools.${pool.name}.auth: must be "aws" on AWS (the functions sign EKS tokens with their roles; ` +
            '"kubeconfig" is for the Node server)',
        ],
  // Every eks pool keeps its ended sessions' pod logs there, recorder or not (unless the file names its own).
  withRecordingsBucket: (input, place) => {
    const { recorder, logBucket } = input;
    return {
      ...input,
      ...(logBucket === undefined ? { logBucket: place } : {}),
      ...(typeof recorder === 'object' && recorder !== null ? { recorder: { ...recorder, ...place } } : {}),
    };
  },
});
