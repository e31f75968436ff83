import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { applyDeployment, parseDeployment } from '../../functions/core/deployment';
import { readGridConfig } from '../../infra/grid-config';
import { GridgateStack } from '../../infra/gridgate-stack';
import { CDK_CONTEXT, logicalId, MULTI_POOL, privateSubnets } from './grid-stack-fixture';

/**
 * CloudFormation's answer for each reference in an environment value: names for Refs, a CIDR for the
 * VPC's CidrBlock, so the value can be read the way the deployed function reads it.
 */
function resolveAsDeployed(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  return join[1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const { Ref: ref, 'Fn::GetAtt': att } = part as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
      if (ref) return `deployed-${ref}`;
      if (att?.[1] === 'CidrBlock') return '10.0.0.0/16';
      return `deployed-${att?.[0]}-${att?.[1]}`;
    })
    .join(join[0]);
}

describe('the router bundle built from the multi-pool example (esbuild, for real)', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'gridgate-bundle-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));
  let template: Template;
  let bundle: string;

  beforeAll(() => {
    const app = new App({ outdir, context: CDK_CONTEXT });
    const stack = new GridgateStack(app, 'Gridgate', {
      config: readGridConfig(MULTI_POOL),
      configFile: MULTI_POOL,
    });
    app.synth();
    template = Template.fromStack(stack);
    const router =
      template.findResources('AWS::Lambda::Function')[
        logicalId(template, 'AWS::Lambda::Function', 'FrontDoorRouter')
      ];
    const hash = String(router?.Properties.Code.S3Key).replace(/\.zip$/, '');
    bundle = join(outdir, `asset.${hash}`);
  }, 120_000);

  function routerEnvironment(): Record<string, unknown> {
    const id = logicalId(template, 'AWS::Lambda::Function', 'FrontDoorRouter');
    return template.findResources('AWS::Lambda::Function')[id]?.Properties.Environment.Variables;
  }

  it('holds the ESM handler the function names, with the chunks it loads later, built as the bench builds it', () => {
    const id = logicalId(template, 'AWS::Lambda::Function', 'FrontDoorRouter');
    expect(template.findResources('AWS::Lambda::Function')[id]?.Properties.Handler).toBe(
      'router-lambda.handler',
    );
    expect(statSync(join(bundle, 'router-lambda.mjs')).size).toBeGreaterThan(10_000);
    // ECS is split off: loaded with the first Fargate session, not at every cold start.
    expect(readdirSync(join(bundle, 'chunks')).length).toBeGreaterThan(1);
    expect(existsSync(join(bundle, 'router-lambda.mjs.map'))).toBe(false);
  });

  it('carries, byte for byte, the config file the stack was built from, where GRIDGATE_CONFIG points', () => {
    expect(readFileSync(join(bundle, 'gridgate.config.json'), 'utf8')).toBe(readFileSync(MULTI_POOL, 'utf8'));
    expect(routerEnvironment().GRIDGATE_CONFIG).toBe('/var/task/gridgate.config.json');
  });

  it('is deployed with facts for exactly the ecs pools, which the router accepts over its bundled config', () => {
    const deployment = parseDeployment(resolveAsDeployed(routerEnvironment().GRIDGATE_DEPLOYMENT));
    expect(Object.keys(deployment.pools).sort()).toEqual(['chrome-spot', 'chromium-arm']);
    const bundled = JSON.parse(readFileSync(join(bundle, 'gridgate.config.json'), 'utf8'));
    const config = parseConfig(applyDeployment(bundled, deployment), { builtInBrowserVersion: 'stable' });
    const table = logicalId(template, 'AWS::DynamoDB::Table', 'Sessions');
    expect(config.store).toEqual({ kind: 'dynamodb', table: `deployed-${table}` });
    for (const [pool, prefix] of [
      ['chrome-spot', 'BrowsersPoolchromespot'],
      ['chromium-arm', 'BrowsersPoolchromiumarm'],
    ] as const) {
      expect(config.pools[pool]).toMatchObject({
        kind: 'ecs',
        cluster: `deployed-${logicalId(template, 'AWS::ECS::Cluster', 'BrowsersCluster')}`,
        taskDefinition: `deployed-${logicalId(template, 'AWS::ECS::TaskDefinition', prefix)}`,
        subnets: privateSubnets(template).map((id) => `deployed-${id}`),
        securityGroups: [
          `deployed-${logicalId(template, 'AWS::EC2::SecurityGroup', 'BrowsersSecurityGroup')}-GroupId`,
        ],
        networks: ['10.0.0.0/16'],
      });
    }
    expect(config.pools['office-hub']).toMatchObject({ kind: 'hub', url: 'http://10.20.0.15:4444/wd/hub' });
  });
});
