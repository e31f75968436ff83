import { Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Vpc } from 'aws-cdk-lib/aws-ec2';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import type { EcsPoolConfig } from '../../functions/core/config';
import { readGridConfig } from '../../infra/grid-config';
import type { NetworkLayout } from '../../infra/network-layout';
import {
  FCK_NAT_AMI,
  gridStack,
  LOOKUP_ENV,
  LOOKUPS,
  MULTI_POOL,
  multiPoolTemplate,
} from './grid-stack-fixture';

const ENDPOINT = 'AWS::EC2::VPCEndpoint';
/** `service` of each VPC endpoint as `Type:name` (ServiceName is com.amazonaws.<region>.<name>). */
function endpoints(template: Template): string[] {
  return Object.values(template.findResources(ENDPOINT))
    .map((endpoint) => {
      const parts: unknown[] = endpoint.Properties.ServiceName['Fn::Join'][1];
      return `${endpoint.Properties.VpcEndpointType}:${String(parts.at(-1)).replace(/^\./, '')}`;
    })
    .sort();
}

const layoutTemplate = (layout: Exclude<NetworkLayout, 'existing'>, more: Record<string, unknown> = {}) =>
  multiPoolTemplate({ network: { layout, ...more } });

describe('network layouts', () => {
  describe('nat-instance (the default): fck-nat, internet for browsers, no interface endpoints', () => {
    const template = multiPoolTemplate();

    it('runs one fck-nat in an Auto Scaling group, sized for every ecs pool full, and no NAT gateway', () => {
      template.resourceCountIs('AWS::EC2::NatGateway', 0);
      template.resourceCountIs('AWS::AutoScaling::AutoScalingGroup', 1);
      template.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', { MinSize: '1', MaxSize: '1' });
      // 20 + 10 browsers at 4 Mbit/s: 120 Mbit/s, past a t4g.nano's 32 and a micro's 64 sustained.
      template.hasResourceProperties('AWS::EC2::LaunchTemplate', {
        LaunchTemplateData: Match.objectLike({ InstanceType: 't4g.small' }),
      });
      // One per AZ: each carries half.
      layoutTemplate('nat-instance', { natGateways: 2 }).hasResourceProperties('AWS::EC2::LaunchTemplate', {
        LaunchTemplateData: Match.objectLike({ InstanceType: 't4g.micro' }),
      });
      // No ecs pool (the built-in defaults): nothing browses through it, the smallest serves.
      Template.fromStack(gridStack()).hasResourceProperties('AWS::EC2::LaunchTemplate', {
        LaunchTemplateData: Match.objectLike({ InstanceType: 't4g.nano' }),
      });
    });

    it('warns at synth when even the largest t4g cannot carry every pool full', () => {
      const example = readGridConfig(MULTI_POOL);
      const spot = example.pools['chrome-spot'] as EcsPoolConfig;
      const stack = gridStack({
        config: { ...example, pools: { ...example.pools, 'chrome-spot': { ...spot, maxSessions: 600 } } },
      });
      expect(
        Annotations.fromStack(stack)
          .findWarning('*', Match.stringLikeRegexp('natInstanceTooSmall'))
          .map((warning) => String(warning.entry.data)),
      ).toEqual([expect.stringMatching(/610 browsers at 4 Mbit\/s need more than a t4g.2xlarge sustains/)]);
    });

    it('routes the private subnets to the internet through the NAT instance', () => {
      const routes = Object.values(template.findResources('AWS::EC2::Route')).map(
        (route) => route.Properties,
      );
      const viaNat = routes.filter(
        (route) => route.NetworkInterfaceId && route.DestinationCidrBlock === '0.0.0.0/0',
      );
      expect(viaNat).toHaveLength(2); // one per private subnet, both AZs
      template.resourceCountIs('AWS::EC2::InternetGateway', 1);
    });

    it('admits traffic to the NAT instance from the VPC only', () => {
      template.hasResourceProperties('AWS::EC2::SecurityGroup', {
        SecurityGroupIngress: [
          Match.objectLike({
            IpProtocol: '-1',
            CidrIp: { 'Fn::GetAtt': [Match.stringLikeRegexp('^NetworkVpc'), 'CidrBlock'] },
          }),
        ],
      });
    });

    it('keeps only the free gateway endpoints, for S3 (image layers bypass the NAT) and DynamoDB', () => {
      expect(endpoints(template)).toEqual(['Gateway:dynamodb', 'Gateway:s3']);
    });

    it("uses fck-nat's AMI, looked up when the account and Region are known", () => {
      const known = Template.fromStack(
        gridStack({ configFile: MULTI_POOL, env: LOOKUP_ENV }, { context: LOOKUPS }),
      );
      known.hasResourceProperties('AWS::EC2::LaunchTemplate', {
        LaunchTemplateData: Match.objectLike({ ImageId: FCK_NAT_AMI }),
      });
    });

    it('synthesizes offline with a placeholder image, and says so', () => {
      const warnings = Annotations.fromStack(gridStack({ configFile: MULTI_POOL })).findWarning(
        '*',
        Match.stringLikeRegexp('placeholder'),
      );
      expect(warnings).toHaveLength(1);
    });
  });

  it('nat-gateway: one managed NAT gateway, no instance, no interface endpoints', () => {
    const template = layoutTemplate('nat-gateway');
    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    template.resourceCountIs('AWS::AutoScaling::AutoScalingGroup', 0);
    template.resourceCountIs('AWS::EC2::Subnet', 4);
    expect(endpoints(template)).toEqual(['Gateway:dynamodb', 'Gateway:s3']);
    layoutTemplate('nat-gateway', { natGateways: 2 }).resourceCountIs('AWS::EC2::NatGateway', 2);
  });

  describe('endpoints: no internet, the AWS APIs through interface endpoints', () => {
    const template = layoutTemplate('endpoints');

    it('is a VPC over two AZs with isolated private subnets only, no NAT, no internet gateway', () => {
      template.resourceCountIs('AWS::EC2::VPC', 1);
      template.resourceCountIs('AWS::EC2::Subnet', 2);
      template.resourceCountIs('AWS::EC2::NatGateway', 0);
      template.resourceCountIs('AWS::EC2::InternetGateway', 0);
      template.resourceCountIs('AWS::AutoScaling::AutoScalingGroup', 0);
      template.allResourcesProperties('AWS::EC2::Subnet', { MapPublicIpOnLaunch: false });
    });

    it('reaches ECS, ECR, Logs and Secrets Manager through interface endpoints in both AZs', () => {
      expect(endpoints(template)).toEqual(
        [
          'Gateway:dynamodb',
          'Gateway:s3',
          'Interface:ecr.api',
          'Interface:ecr.dkr',
          'Interface:ecs',
          'Interface:logs',
          'Interface:secretsmanager',
        ].sort(),
      );
      const interfaces = Object.values(
        template.findResources(ENDPOINT, { Properties: { VpcEndpointType: 'Interface' } }),
      );
      for (const endpoint of interfaces) expect(endpoint.Properties.SubnetIds).toHaveLength(2);
    });

    it('puts the interface endpoints in one AZ when asked, at half the price', () => {
      const oneAz = layoutTemplate('endpoints', { endpointAzs: 1 });
      const interfaces = Object.values(
        oneAz.findResources(ENDPOINT, { Properties: { VpcEndpointType: 'Interface' } }),
      );
      expect(interfaces).toHaveLength(5);
      for (const endpoint of interfaces) expect(endpoint.Properties.SubnetIds).toHaveLength(1);
    });
  });

  describe('existing: a VPC of yours, used as it is', () => {
    it('looks the VPC up by ID and adds nothing to it: no VPC, endpoints, NAT or flow logs, tasks in its private subnets', () => {
      const stack = gridStack(
        { configFile: MULTI_POOL, env: LOOKUP_ENV, network: { vpcId: 'vpc-0123456789abcdef0' } },
        { context: LOOKUPS },
      );
      const template = Template.fromStack(stack);
      for (const type of [
        'AWS::EC2::VPC',
        ENDPOINT,
        'AWS::EC2::FlowLog',
        'AWS::EC2::NatGateway',
        'AWS::AutoScaling::AutoScalingGroup',
      ])
        template.resourceCountIs(type, 0);
      const router = Object.values(template.findResources('AWS::Lambda::Function')).find((f) =>
        String(f.Properties.Description).startsWith('gridgate router'),
      );
      expect(router?.Properties.VpcConfig.SubnetIds).toEqual(['subnet-0aaa', 'subnet-0bbb']);
      expect(router?.Properties.Environment.Variables.GRIDGATE_DEPLOYMENT['Fn::Join'][1].join('')).toContain(
        '"networks":["10.30.0.0/16"]',
      );
      expect(stack.network.layout).toBe('existing');
    });

    it('takes a VPC object too', () => {
      const vpc = Vpc.fromVpcAttributes(new Stack(), 'Existing', {
        vpcId: 'vpc-0123',
        vpcCidrBlock: '172.31.0.0/16',
        availabilityZones: ['eu-west-1a', 'eu-west-1b'],
        privateSubnetIds: ['subnet-a', 'subnet-b'],
      });
      const existing = Template.fromStack(gridStack({ configFile: MULTI_POOL, network: { vpc } }));
      existing.resourceCountIs('AWS::EC2::VPC', 0);
      existing.hasResourceProperties('AWS::Lambda::Function', {
        VpcConfig: Match.objectLike({ SubnetIds: ['subnet-a', 'subnet-b'] }),
      });
    });
  });

  it('logs rejected traffic in every new VPC', () => {
    for (const layout of ['nat-instance', 'nat-gateway', 'endpoints'] as const) {
      layoutTemplate(layout).hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT' });
    }
  });

  it.each(['nat-instance', 'nat-gateway', 'endpoints'] as const)(
    'passes cdk-nag in the %s layout',
    (layout) => {
      const stack = gridStack({ configFile: MULTI_POOL, network: { layout } });
      expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
    },
  );
});
