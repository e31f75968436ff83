import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../functions/core/config';
import type { FrontDoorKind } from '../../infra/front-door';
import { clusterVpc, exampleEdits } from './eks-cluster-fixture';
import { gridStack, logicalId, ROOT } from './grid-stack-fixture';

const EKS_POOL = join(ROOT, 'infra/examples/eks-pool.json');
const ACCESS_ENTRY = 'AWS::EKS::AccessEntry';
const INGRESS = 'AWS::EC2::SecurityGroupIngress';
const NODE_GROUP = 'sg-0123456789abcdef0';
const EDIT_POLICY = {
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, ':eks::aws:cluster-access-policy/AmazonEKSEditPolicy'],
  ],
};

const exampleWith = exampleEdits(EKS_POOL);

/** The GetAtt of the role of the function whose description starts with `description`. */
function roleOf(template: Template, description: string): unknown {
  const fn = Object.values(template.findResources('AWS::Lambda::Function')).find((resource) =>
    String(resource.Properties.Description).startsWith(description),
  );
  if (!fn) throw new Error(`no function described "${description}…"`);
  return fn.Properties.Role;
}

describe('an eks pool on an existing cluster (eks-pool example: Spot and on-demand pools in one namespace)', () => {
  const stack = gridStack({ configFile: EKS_POOL, network: { vpc: clusterVpc() } });
  const template = Template.fromStack(stack);
  const routerGroup = logicalId(template, 'AWS::EC2::SecurityGroup', 'FrontDoorSecurityGroup');
  const cleanupGroup = logicalId(template, 'AWS::EC2::SecurityGroup', 'CleanupSecurityGroup');

  it("maps the router's and the cleanup's roles to AmazonEKSEditPolicy in the pools' namespace only", () => {
    template.resourceCountIs(ACCESS_ENTRY, 2);
    for (const role of [roleOf(template, 'gridgate router'), roleOf(template, 'gridgate cleanup')]) {
      template.hasResourceProperties(ACCESS_ENTRY, {
        ClusterName: 'platform',
        PrincipalArn: role,
        Type: 'STANDARD',
        AccessPolicies: [
          { PolicyArn: EDIT_POLICY, AccessScope: { Type: 'namespace', Namespaces: ['gridgate'] } },
        ],
      });
    }
    // Cluster-wide scope would let the router touch every namespace's pods.
    for (const entry of Object.values(template.findResources(ACCESS_ENTRY))) {
      expect(entry.Properties.AccessPolicies).toHaveLength(1);
      expect(entry.Properties.KubernetesGroups).toBeUndefined();
    }
  });

  it("admits the router to the pods' WebDriver port, and both functions to the API, on the cluster's group", () => {
    const admitted = (group: string, port: number) => ({
      GroupId: NODE_GROUP,
      IpProtocol: 'tcp',
      FromPort: port,
      ToPort: port,
      SourceSecurityGroupId: { 'Fn::GetAtt': [group, 'GroupId'] },
    });
    template.hasResourceProperties(INGRESS, admitted(routerGroup, 4444));
    template.hasResourceProperties(INGRESS, admitted(routerGroup, 443));
    template.hasResourceProperties(INGRESS, admitted(cleanupGroup, 443));
    // The cleanup only lists and deletes pods; and two pools on one group and port make one rule, not two.
    const rules = Object.values(template.findResources(INGRESS)).filter(
      (rule) => rule.Properties.GroupId === NODE_GROUP,
    );
    expect(rules).toHaveLength(3);
  });

  it("creates no cluster, namespace, kubectl handler or custom resource: the cluster stays its owner's", () => {
    for (const type of ['AWS::EKS::Cluster', 'Custom::AWSCDK-EKS-KubernetesResource', 'Custom::AWS']) {
      template.resourceCountIs(type, 0);
    }
    // Only the grid's own functions (router, cleanup, Spot interruptions, and the REST front door's
    // account CloudWatch role setter): no kubectl or provider Lambda.
    expect(
      Object.keys(template.findResources('AWS::Lambda::Function')).map((id) =>
        id.replace(/[0-9A-F]{8}$/, ''),
      ),
    ).toEqual(expect.arrayContaining(['FrontDoorRouter', 'FrontDoorAccountLoggingRoleSetter']));
    template.resourceCountIs('AWS::Lambda::Function', 4);
  });

  it('grants no EKS IAM action: tokens are signed locally, endpoint and CA come from the config', () => {
    const actions = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      policy.Properties.PolicyDocument.Statement.flatMap((statement: { Action: string | string[] }) =>
        [statement.Action].flat(),
      ),
    );
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((action) => action.startsWith('eks:') || action === '*')).toEqual([]);
  });

  it("gives the router the pools' endpoint, CA and networks through the bundled config (no deployment facts)", () => {
    const router = Object.values(template.findResources('AWS::Lambda::Function')).find((resource) =>
      String(resource.Properties.Description).startsWith('gridgate router'),
    );
    const deployment = JSON.stringify(router?.Properties.Environment.Variables.GRIDGATE_DEPLOYMENT);
    expect(deployment).not.toContain('pods-spot');
  });

  it('says at synth that the namespace is left to the cluster owner, and warns of nothing', () => {
    const annotations = Annotations.fromStack(stack);
    expect(annotations.findInfo('*', Match.stringLikeRegexp('create namespace gridgate'))).toHaveLength(1);
    expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
    expect(annotations.findError('*', Match.anyValue())).toEqual([]);
  });

  it.each<FrontDoorKind>(['rest-api', 'function-url', 'web-function'])(
    'passes cdk-nag with the %s front door',
    (kind) => {
      const nagged = gridStack({ configFile: EKS_POOL, network: { vpc: clusterVpc() }, frontDoor: { kind } });
      expect(new AwsSolutionsChecks().validateScope(nagged).violations).toEqual([]);
      expect(Template.fromStack(nagged).findResources(ACCESS_ENTRY)).not.toEqual({});
    },
  );
});

describe('eks pools the stack cannot deploy', () => {
  it('names every setting a pool lacks, with where to find it', () => {
    const path = exampleWith('incomplete.json', (pools) => {
      delete pools['pods-spot']?.securityGroup;
      delete pools['pods-spot']?.certificateAuthority;
      delete pools['pods-on-demand']?.endpoint;
    });
    const build = () => gridStack({ configFile: path, network: { vpc: clusterVpc() } });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(
      [
        `${path} is not a valid gridgate config:`,
        "  - pools.pods-spot.certificateAuthority: the CDK app needs the cluster's CA (aws eks describe-cluster --name platform --query cluster.certificateAuthority.data)",
        '  - pools.pods-spot.securityGroup: the CDK app needs the group on the nodes and the API endpoint (aws eks describe-cluster --name platform --query cluster.resourcesVpcConfig.clusterSecurityGroupId)',
        "  - pools.pods-on-demand.endpoint: the CDK app needs the cluster's API URL (aws eks describe-cluster --name platform --query cluster.endpoint)",
      ].join('\n'),
    );
  });

  it('refuses kubeconfig auth, which only the Node server has', () => {
    const path = exampleWith('kubeconfig.json', (pools) => {
      Object.assign(pools['pods-spot'] as object, { auth: 'kubeconfig' });
    });
    expect(() => gridStack({ configFile: path, network: { vpc: clusterVpc() } })).toThrow(
      'pools.pods-spot.auth: must be "aws" on AWS',
    );
  });

  it("warns when the router would run in a new VPC, away from the cluster's pods", () => {
    const warnings = Annotations.fromStack(gridStack({ configFile: EKS_POOL })).findWarning(
      '*',
      Match.stringLikeRegexp('pods-spot, pods-on-demand.*-c vpcId'),
    );
    expect(warnings).toHaveLength(1);
  });
});

describe('eks pools on two clusters and namespaces', () => {
  const path = exampleWith('two-clusters.json', (pools) => {
    Object.assign(pools['pods-on-demand'] as object, {
      cluster: 'ci',
      namespace: 'browsers',
      securityGroup: 'sg-0fedcba9876543210',
      port: 5555,
    });
    pools['pods-late'] = { ...pools['pods-spot'], namespace: 'late' };
  });
  const template = Template.fromStack(gridStack({ configFile: path, network: { vpc: clusterVpc() } }));

  it('makes one entry per cluster and function, scoped to the namespaces of that cluster only', () => {
    template.resourceCountIs(ACCESS_ENTRY, 4);
    const scopes = Object.values(template.findResources(ACCESS_ENTRY)).map((entry) => [
      entry.Properties.ClusterName,
      entry.Properties.AccessPolicies[0].AccessScope.Namespaces,
    ]);
    expect(scopes.sort()).toEqual([
      ['ci', ['browsers']],
      ['ci', ['browsers']],
      ['platform', ['gridgate', 'late']],
      ['platform', ['gridgate', 'late']],
    ]);
  });

  it("opens each pool's port on its own cluster's group", () => {
    template.hasResourceProperties(INGRESS, { GroupId: 'sg-0fedcba9876543210', FromPort: 5555 });
    expect(template.findResources(INGRESS, { Properties: { GroupId: NODE_GROUP, FromPort: 5555 } })).toEqual(
      {},
    );
  });
});
