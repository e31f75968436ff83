/** Builds the gridgate stack the way `cdk synth` does (cdk.json's feature flags), without bundling. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { readGridConfig } from '../../infra/grid-config';
import { GridgateStack, type GridgateStackProps } from '../../infra/gridgate-stack';

export const ROOT = join(import.meta.dirname, '../..');
export const MULTI_POOL = join(ROOT, 'infra/examples/multi-pool.json');
// The feature flags `cdk synth` runs with, so these tests see the template that would be deployed.
export const CDK_CONTEXT = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context;

export interface FixtureOptions {
  /**
   * Check the template against CloudFormation's schema on synthesis (seconds of CPU each time), as
   * `cdk synth` does. @default false
   */
  schemaCheck?: boolean;
  /** More context, e.g. the cached answers of lookups (an existing VPC, an AMI), so none calls AWS. */
  context?: Record<string, unknown>;
}

/** `configFile` (default: the built-in defaults) read and validated as the CDK app does. */
export function gridStack(props: Partial<GridgateStackProps> = {}, options: FixtureOptions = {}) {
  const app = new App({
    // Bundling (esbuild) is skipped here; bundled-config.test.ts bundles for real.
    context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [], ...options.context },
    builtinCloudFormationValidation: options.schemaCheck ?? false,
  });
  return new GridgateStack(app, 'Gridgate', {
    config: readGridConfig(props.configFile),
    ...props,
  });
}

/** The template of the stack built from the multi-pool example (two ecs pools, one hub pool). */
export function multiPoolTemplate(props: Partial<GridgateStackProps> = {}): Template {
  return Template.fromStack(gridStack({ configFile: MULTI_POOL, ...props }));
}

/** The one resource of `type` whose logical ID starts with `prefix`. */
export const FUNCTION = 'AWS::Lambda::Function';

/** The Properties of the one Lambda function whose logical ID starts with `prefix`. */
export function functionProps(template: Template, prefix: string) {
  return template.findResources(FUNCTION)[logicalId(template, FUNCTION, prefix)]?.Properties;
}

export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1)
    throw new Error(`expected one ${type} named ${prefix}*, found ${ids.join(', ') || 'none'}`);
  return ids[0] as string;
}

/** The logical IDs of the new VPC's private subnets (where the router and the browsers run), not the public ones. */
export function privateSubnets(template: Template): string[] {
  return Object.keys(template.findResources('AWS::EC2::Subnet')).filter((id) => id.includes('privateSubnet'));
}

/** An account and Region, for the lookups a deploy with credentials makes. */
export const LOOKUP_ENV = { account: '111122223333', region: 'eu-west-1' };
export const FCK_NAT_AMI = 'ami-0fcknat0000000001';
/** What `cdk synth` with credentials caches in cdk.context.json for LOOKUP_ENV: no lookup leaves the process. */
export const LOOKUPS = {
  'availability-zones:account=111122223333:region=eu-west-1': ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'],
  'ami:account=111122223333:filters.image-type.0=machine:filters.name.0=fck-nat-al2023-*-arm64-ebs:filters.state.0=available:owners.0=568608671756:region=eu-west-1':
    FCK_NAT_AMI,
  'vpc-provider:account=111122223333:filter.vpc-id=vpc-0123456789abcdef0:region=eu-west-1:returnAsymmetricSubnets=true':
    {
      vpcId: 'vpc-0123456789abcdef0',
      vpcCidrBlock: '10.30.0.0/16',
      ownerAccountId: '111122223333',
      availabilityZones: [],
      subnetGroups: [
        {
          name: 'Private',
          type: 'Private',
          subnets: [
            {
              subnetId: 'subnet-0aaa',
              cidr: '10.30.0.0/20',
              availabilityZone: 'eu-west-1a',
              routeTableId: 'rtb-0a',
            },
            {
              subnetId: 'subnet-0bbb',
              cidr: '10.30.16.0/20',
              availabilityZone: 'eu-west-1b',
              routeTableId: 'rtb-0b',
            },
          ],
        },
      ],
    },
};
