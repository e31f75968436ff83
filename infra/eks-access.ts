/**
 * What the grid needs on each existing EKS cluster its `eks` pools name, made without kubectl: an EKS access
 * entry per gridgate function mapping its role to AmazonEKSEditPolicy in the pools' namespaces, and the
 * security-group rules that let those functions reach the API endpoint (443) and the pods' WebDriver port.
 * The namespaces and the nodes stay the cluster owner's (docs/eks.md, "On an existing EKS cluster, with the CDK app").
 */
import { Annotations, Stack } from 'aws-cdk-lib';
import { type IConnectable, type ISecurityGroup, Port, SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import { CfnAccessEntry } from 'aws-cdk-lib/aws-eks';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ConfigError, type EksPoolConfig } from '../functions/core/config';
import { configTraitsOf } from '../functions/core/config-traits-by-kind';

/** A gridgate function that calls the pods: its role (for the access entry) and its security group. */
export interface EksClient {
  /** Names its resources: "Router", "Cleanup". */
  id: string;
  role: IRole;
  connections: IConnectable;
  /** It talks WebDriver to the pods (the router), not only to the Kubernetes API (the cleanup). */
  webDriver: boolean;
  /** Reaches the pods' noVNC port too (heads behind the service front door). */
  vnc: boolean;
}

export interface EksClusterAccessProps {
  /** The config's eks pools. Each names its cluster, endpoint, CA, networks and security group. */
  pools: EksPoolConfig[];
  /** The router (creates, reads and deletes pods) and the cleanup (lists and deletes them). */
  clients: EksClient[];
  /** The config file, for errors. @default "the gridgate config" */
  configFile?: string;
}

/**
 * The narrowest AWS-managed access policy that creates and deletes pods: AmazonEKSViewPolicy only reads,
 * AmazonEKSAdminPolicy also edits RBAC in the namespace. Scoped to the pools' namespaces below. It also reads
 * pods' logs (`pods/log`: get, list, watch), which the router asks for a running session's log: the Amazon
 * EKS User Guide, "Review access policy permissions", lists that rule under AmazonEKSEditPolicy, as the
 * Kubernetes `edit` ClusterRole has it from `view` ("User-facing roles").
 */
export const EKS_ACCESS_POLICY = 'AmazonEKSEditPolicy';
/** The Kubernetes API's port on an EKS endpoint; the private one sits on the cluster security group. */
const API_PORT = 443;

export class EksClusterAccess extends Construct {
  /** By cluster name, then client id. */
  readonly accessEntries: ReadonlyMap<string, ReadonlyMap<string, CfnAccessEntry>>;

  constructor(scope: Construct, id: string, props: EksClusterAccessProps) {
    super(scope, id);
    const problems = props.pools.flatMap(undeployableSettings);
    if (problems.length > 0) throw new ConfigError(props.configFile ?? 'the gridgate config', problems);
    const clusters = byCluster(props.pools);
    const entries = new Map<string, Map<string, CfnAccessEntry>>();
    for (const [cluster, pools] of clusters) {
      const namespaces = [...new Set(pools.map((pool) => pool.namespace))].sort();
      entries.set(
        cluster,
        new Map(props.clients.map((client) => [client.id, this.accessEntry(cluster, namespaces, client)])),
      );
      for (const pool of pools) this.admit(pool, props.clients);
      Annotations.of(this).addInfo(
        `gridgate: cluster "${cluster}": create namespace ${namespaces.join(', ')} before the first session (kubectl create namespace <name>); the access entries grant ${EKS_ACCESS_POLICY} there but cannot create it`,
      );
    }
    this.accessEntries = entries;
  }

  private accessEntry(cluster: string, namespaces: string[], client: EksClient): CfnAccessEntry {
    return new CfnAccessEntry(this, `${client.id}-${cluster}`, {
      clusterName: cluster,
      principalArn: client.role.roleArn,
      type: 'STANDARD',
      accessPolicies: [
        {
          policyArn: Stack.of(this).formatArn({
            service: 'eks',
            region: '',
            account: 'aws',
            resource: 'cluster-access-policy',
            resourceName: EKS_ACCESS_POLICY,
          }),
          accessScope: { type: 'namespace', namespaces },
        },
      ],
    });
  }

  /** Admits the clients to the private API endpoint, and the router to the WebDriver port, on the pool's group. */
  private admit(pool: EksPoolConfig, clients: EksClient[]): void {
    const group = this.securityGroup(pool.securityGroup as string);
    for (const client of clients) {
      if (client.webDriver)
        group.connections.allowFrom(
          client.connections,
          Port.tcp(pool.port),
          `WebDriver from the gridgate ${client.id}`,
        );
      if (client.vnc && pool.vncPort)
        group.connections.allowFrom(
          client.connections,
          Port.tcp(pool.vncPort),
          `noVNC from the gridgate ${client.id}`,
        );
      group.connections.allowFrom(
        client.connections,
        Port.tcp(API_PORT),
        `Kubernetes API from the gridgate ${client.id}`,
      );
    }
  }

  /** The existing group, imported once however many pools name it (its rules dedupe by peer and port). */
  private securityGroup(groupId: string): ISecurityGroup {
    const id = `SecurityGroup-${groupId}`;
    return (
      (this.node.tryFindChild(id) as ISecurityGroup | undefined) ??
      // Mutable: the ingress rules become AWS::EC2::SecurityGroupIngress resources of this stack, removed
      // with it; the group itself, and its other rules, stay the cluster owner's.
      SecurityGroup.fromSecurityGroupId(this, id, groupId, { mutable: true, allowAllOutbound: true })
    );
  }
}

/** What the stack needs of an eks pool that the router's schema leaves optional, each naming its key. */
export function undeployableSettings(pool: EksPoolConfig): string[] {
  const at = `pools.${pool.name}`;
  const problems: string[] = [];
  // The functions' own refusal (deployed-config.ts), in the same words.
  problems.push(...(configTraitsOf(pool).notOnAws?.(pool) ?? []));
  const describe = `aws eks describe-cluster --name ${pool.cluster}`;
  const needed: [keyof EksPoolConfig, string][] = [
    ['endpoint', `the cluster's API URL (${describe} --query cluster.endpoint)`],
    ['certificateAuthority', `the cluster's CA (${describe} --query cluster.certificateAuthority.data)`],
    ['networks', "the CIDR blocks of the pods' IPs (with the VPC CNI: the cluster VPC's CIDR)"],
    [
      'securityGroup',
      `the group on the nodes and the API endpoint (${describe} --query cluster.resourcesVpcConfig.clusterSecurityGroupId)`,
    ],
  ];
  for (const [key, what] of needed) {
    if (pool[key] === undefined) problems.push(`${at}.${key}: the CDK app needs ${what}`);
  }
  return problems;
}

function byCluster(pools: EksPoolConfig[]): Map<string, EksPoolConfig[]> {
  const clusters = new Map<string, EksPoolConfig[]>();
  for (const pool of pools) clusters.set(pool.cluster, [...(clusters.get(pool.cluster) ?? []), pool]);
  return clusters;
}
