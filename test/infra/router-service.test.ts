/**
 * The service front door (`-c frontDoor=service`): router heads as an ECS Fargate service behind an
 * Application Load Balancer, asserted on the synthesized template, cdk-nag, the head image asset's
 * staged build, and the config errors a service front door without what it needs gets.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { readGridConfig } from '../../infra/grid-config';
import { GridgateStack } from '../../infra/gridgate-stack';
import { finalStage } from '../support/dockerfile-stage';
import { CDK_CONTEXT, gridStack, logicalId, ROOT } from './grid-stack-fixture';

const dir = mkdtempSync(join(tmpdir(), 'gridgate-service-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHROME_POOL = {
  kind: 'ecs',
  image: 'selenium/standalone-chrome:4.39.0-20251202',
  spot: true,
  maxSessions: 4,
};
const CATALOG = {
  defaultBrowser: 'chrome',
  browsers: { chrome: { defaultVersion: 'stable', versions: { stable: { pools: ['chrome-spot'] } } } },
  pools: { 'chrome-spot': CHROME_POOL },
};

function configFile(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

const HEADS = configFile('heads.json', {
  ...CATALOG,
  heads: { min: 2, max: 6, onDemand: 1 },
  timeouts: { newSession: '3m', queue: '60s', idle: '10m' },
});
const HTTPS_HEADS = configFile('https-heads.json', {
  ...CATALOG,
  heads: {
    min: 1,
    max: 3,
    domainName: 'grid.example.com',
    certificateArn: 'arn:aws:acm:eu-west-1:111122223333:certificate/0a1b2c3d-0000-4000-8000-000000000000',
  },
});

function serviceStack(configPath: string) {
  return gridStack({ configFile: configPath, frontDoor: { kind: 'service' } });
}

describe('the service front door', () => {
  const stack = serviceStack(HEADS);
  const template = Template.fromStack(stack);
  const headsGroup = logicalId(template, 'AWS::EC2::SecurityGroup', 'FrontDoorSecurityGroup');
  const balancerGroup = logicalId(
    template,
    'AWS::EC2::SecurityGroup',
    'FrontDoorHeadsLoadBalancerSecurityGroup',
  );
  const browsersGroup = logicalId(template, 'AWS::EC2::SecurityGroup', 'BrowsersSecurityGroup');

  it('runs the heads as a Fargate service: the minimum on start, on-demand base, the rest on Spot', () => {
    template.hasResourceProperties('AWS::ECS::Service', {
      DesiredCount: 2,
      CapacityProviderStrategy: [
        { CapacityProvider: 'FARGATE', Base: 1, Weight: 0 },
        { CapacityProvider: 'FARGATE_SPOT', Weight: 1 },
      ],
      NetworkConfiguration: {
        AwsvpcConfiguration: {
          AssignPublicIp: 'DISABLED',
          SecurityGroups: [{ 'Fn::GetAtt': [headsGroup, 'GroupId'] }],
        },
      },
      LoadBalancers: [Match.objectLike({ ContainerName: 'head', ContainerPort: 4444 })],
      DeploymentConfiguration: Match.objectLike({
        DeploymentCircuitBreaker: { Enable: true, Rollback: true },
      }),
    });
    // No router Lambda: the heads are the router.
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(functions.some((fn) => String(fn.Properties.Description).startsWith('gridgate router'))).toBe(
      false,
    );
  });

  it("creates the heads' service only once the cluster has its capacity providers", () => {
    // A service with a capacity-provider strategy fails to create while its cluster's providers are not yet
    // associated, and CloudFormation may otherwise create both at once.
    const association = logicalId(
      template,
      'AWS::ECS::ClusterCapacityProviderAssociations',
      'BrowsersCluster',
    );
    const services = Object.values(template.findResources('AWS::ECS::Service'));
    expect(services).toHaveLength(1);
    expect(services[0]?.DependsOn).toContain(association);
  });

  it('gives the heads the shared table, the signing key and the load balancer as their public URL', () => {
    const task = Object.values(template.findResources('AWS::ECS::TaskDefinition')).find((resource) =>
      resource.Properties.ContainerDefinitions.some(
        (container: { Name: string }) => container.Name === 'head',
      ),
    );
    expect(task?.Properties.RuntimePlatform).toEqual({
      CpuArchitecture: 'X86_64',
      OperatingSystemFamily: 'LINUX',
    });
    const environment = JSON.stringify(task?.Properties.ContainerDefinitions[0].Environment);
    const balancer = logicalId(template, 'AWS::ElasticLoadBalancingV2::LoadBalancer', 'FrontDoorHeads');
    expect(environment).toContain('GRIDGATE_SECRET_ARN');
    expect(environment).toContain(logicalId(template, 'AWS::DynamoDB::Table', 'Sessions'));
    expect(environment).toContain(`\\"publicUrl\\":\\"http://",{"Fn::GetAtt":["${balancer}","DNSName"]}`);
    // Heads listen where the load balancer reaches them, not on the loopback a config file gets by default.
    expect(environment).toContain('\\"host\\":\\"0.0.0.0\\"');
  });

  it('puts an internet-facing load balancer in the public subnets, idle long enough for a cold start and a quiet session', () => {
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', {
      Scheme: 'internet-facing',
      // The config: queue 60 s + newSession 3 min, or idle 10 min, whichever is longer, and a minute.
      LoadBalancerAttributes: Match.arrayWith([
        { Key: 'idle_timeout.timeout_seconds', Value: String(11 * 60) },
        { Key: 'routing.http.drop_invalid_header_fields.enabled', Value: 'true' },
      ]),
      Subnets: Match.arrayWith([{ Ref: Match.stringLikeRegexp('publicSubnet') }]),
    });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Port: 80, Protocol: 'HTTP' });
  });

  it('health-checks /status and drains a head for as long as a command may take', () => {
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      HealthCheckPath: '/status',
      Matcher: { HttpCode: '200' },
      Port: 4444,
      TargetType: 'ip',
      TargetGroupAttributes: Match.arrayWith([{ Key: 'deregistration_delay.timeout_seconds', Value: '330' }]),
    });
  });

  it('scales on CPU between the config’s minimum and maximum', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      MinCapacity: 2,
      MaxCapacity: 6,
      ScalableDimension: 'ecs:service:DesiredCount',
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        PredefinedMetricSpecification: { PredefinedMetricType: 'ECSServiceAverageCPUUtilization' },
        TargetValue: 60,
        ScaleInCooldown: 300,
        ScaleOutCooldown: 60,
      },
    });
  });

  it('lets the load balancer alone reach the heads, and the heads reach the browsers on WebDriver and noVNC', () => {
    const ingress = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress')).map(
      (rule) => rule.Properties,
    );
    const into = (group: string) =>
      ingress.filter(
        (rule) => JSON.stringify(rule.GroupId) === JSON.stringify({ 'Fn::GetAtt': [group, 'GroupId'] }),
      );
    expect(into(headsGroup)).toEqual([
      expect.objectContaining({
        FromPort: 4444,
        ToPort: 4444,
        SourceSecurityGroupId: { 'Fn::GetAtt': [balancerGroup, 'GroupId'] },
      }),
    ]);
    const fromHeads = into(browsersGroup).filter(
      (rule) =>
        JSON.stringify(rule.SourceSecurityGroupId) ===
        JSON.stringify({ 'Fn::GetAtt': [headsGroup, 'GroupId'] }),
    );
    expect(fromHeads.map((rule) => rule.FromPort).sort()).toEqual([4444, 7900]);
    // The load balancer's own group: clients from anywhere on its listener port, out to the heads only.
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('gridgate load balancer'),
      SecurityGroupIngress: [Match.objectLike({ CidrIp: '0.0.0.0/0', FromPort: 80, ToPort: 80 })],
    });
    const egress = Object.values(template.findResources('AWS::EC2::SecurityGroupEgress')).map(
      (rule) => rule.Properties,
    );
    expect(
      egress
        .filter((rule) => JSON.stringify(rule.GroupId).includes(balancerGroup))
        .map((rule) => rule.DestinationSecurityGroupId),
    ).toEqual([{ 'Fn::GetAtt': [headsGroup, 'GroupId'] }]);
  });

  it('passes cdk-nag AwsSolutions with written-down acknowledgements, over HTTP and HTTPS', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
    expect(new AwsSolutionsChecks().validateScope(serviceStack(HTTPS_HEADS)).violations).toEqual([]);
  });

  it('listens on HTTPS with the certificate for the domain, redirects HTTP, and hands out https URLs on the domain', () => {
    const https = Template.fromStack(serviceStack(HTTPS_HEADS));
    https.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Port: 443,
      Protocol: 'HTTPS',
      Certificates: [
        {
          CertificateArn:
            'arn:aws:acm:eu-west-1:111122223333:certificate/0a1b2c3d-0000-4000-8000-000000000000',
        },
      ],
    });
    https.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Port: 80,
      DefaultActions: [
        Match.objectLike({ Type: 'redirect', RedirectConfig: Match.objectLike({ Protocol: 'HTTPS' }) }),
      ],
    });
    const environment = JSON.stringify(https.findResources('AWS::ECS::TaskDefinition'));
    expect(environment).toContain('\\"publicUrl\\":\\"https://grid.example.com\\"');
    expect(environment).toContain('\\"baseDomains\\":[\\"grid.example.com\\"]');
    https.hasOutput('WebDriverUrl', { Value: 'https://grid.example.com/wd/hub' });
  });
});

describe('the head image asset', () => {
  it("is the repository's Dockerfile, same entry command, with the deployment's config added where it reads it", () => {
    const app = new App({
      context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] },
      outdir: join(dir, 'out'),
    });
    const stack = new GridgateStack(app, 'Gridgate', {
      config: readGridConfig(HEADS),
      configFile: HEADS,
      frontDoor: { kind: 'service' },
    });
    app.synth();
    const assets = JSON.parse(readFileSync(join(dir, 'out', `${stack.artifactId}.assets.json`), 'utf8'));
    const head = Object.values(
      assets.dockerImages as Record<
        string,
        { displayName: string; source: { directory: string; platform: string } }
      >,
    ).find((image) => image.displayName.includes('Heads'));
    expect(head?.source.platform).toBe('linux/amd64');
    const context = join(dir, 'out', head?.source.directory as string);
    const repository = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const staged = readFileSync(join(context, 'Dockerfile'), 'utf8');
    expect(staged.startsWith(repository)).toBe(true);
    expect(finalStage(staged).command).toEqual(finalStage(repository).command);
    expect(staged).toContain('COPY gridgate-config/ /etc/gridgate/');
    expect(finalStage(repository).env.GRIDGATE_CONFIG).toBe('/etc/gridgate/gridgate.json');
    expect(readFileSync(join(context, 'gridgate-config/gridgate.json'), 'utf8')).toBe(
      readFileSync(HEADS, 'utf8'),
    );
    // What the build stage copies is in the context.
    for (const file of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'functions/entry/node-server.ts',
      'scripts/server-build.mjs',
    ]) {
      expect(() => readFileSync(join(context, file))).not.toThrow();
    }
  });
});

describe('a config for the service front door', () => {
  const run = promisify(execFile);
  const synth = (config: string) =>
    run(join(ROOT, 'node_modules/.bin/tsx'), ['infra/app.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        CDK_CONTEXT_JSON: JSON.stringify({ config, frontDoor: 'service', 'aws:cdk:bundling-stacks': [] }),
        CDK_OUTDIR: join(dir, `out-${Math.random().toString(36).slice(2)}`),
        CDK_VALIDATION: 'false',
      },
    });

  it('without heads, or with local pools, fails synthesis naming each key', async () => {
    const lacking = configFile('lacking.json', {
      browsers: { chrome: { versions: { stable: { pools: ['here'] } } } },
      pools: { here: { kind: 'local' } },
    });
    await expect(synth(lacking)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /\(with -c frontDoor=service\) is not a valid gridgate config:\n {2}- heads: the service front door needs the heads section[\s\S]*- pools\.here: local pools cannot run in a head/,
      ),
    });
  });

  it.each([
    [{ min: 3, max: 2 }, /heads\.min: min must not be above max/],
    [{ min: 1, max: 2, onDemand: 2 }, /heads\.onDemand: onDemand must not be above min/],
    [
      { min: 1, max: 2, domainName: 'grid.example.com' },
      /heads\.certificateArn: domainName and certificateArn go together/,
    ],
    [{ min: 1, max: 2, cpu: 300 }, /heads\.cpu/],
  ])('refuses heads %j', (heads, message) => {
    expect(() => parseConfig({ heads }, { builtInBrowserVersion: 'stable' })).toThrow(message);
  });
});
