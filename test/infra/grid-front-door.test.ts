/** The stack's front door: the REST API streaming from the router Lambda, and the function-URL and web-function alternatives. */
import { Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { HostedZone } from 'aws-cdk-lib/aws-route53';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_ROLE_RESOURCE_TYPE } from '../../infra/api-gateway-account-role';
import type { FrontDoorKind } from '../../infra/front-door';
import { readGridConfig } from '../../infra/grid-config';
import { stageThrottle } from '../../infra/stage-throttle';
import {
  FUNCTION,
  functionProps,
  gridStack,
  logicalId,
  MULTI_POOL,
  multiPoolTemplate,
  privateSubnets,
} from './grid-stack-fixture';

const METHOD = 'AWS::ApiGateway::Method';

describe('the front door: a REST API streaming from the router Lambda (the default)', () => {
  const template = multiPoolTemplate();
  const router = logicalId(template, FUNCTION, 'FrontDoorRouter');

  it('streams every route, root and {proxy+}, any method, with the 15-minute integration timeout', () => {
    const methods = Object.values(template.findResources(METHOD));
    expect(methods).toHaveLength(2);
    for (const method of methods) {
      expect(method.Properties).toMatchObject({
        HttpMethod: 'ANY',
        Integration: {
          Type: 'AWS_PROXY',
          ResponseTransferMode: 'STREAM',
          TimeoutInMillis: 900_000,
          Uri: {
            'Fn::Join': [
              '',
              expect.arrayContaining([{ 'Fn::GetAtt': [router, 'Arn'] }, '/response-streaming-invocations']),
            ],
          },
        },
      });
    }
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: '{proxy+}' });
  });

  it('throttles the stage at what every pool full and busy sends, and writes access logs', () => {
    // multi-pool: 20 + 10 + 5 sessions at most, 10 commands a second each, a burst of twice that.
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'grid',
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 350, ThrottlingBurstLimit: 700 })],
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
  });

  it("has the account's API Gateway CloudWatch role set, where none is, before the stage that logs", () => {
    // A stage with access logs fails to create in an account without that role.
    const setting = logicalId(template, ACCOUNT_ROLE_RESOURCE_TYPE, 'FrontDoorAccountLoggingRoleSetting');
    const role = logicalId(template, 'AWS::IAM::Role', 'FrontDoorAccountLoggingRoleCloudWatchRole');
    template.hasResourceProperties(ACCOUNT_ROLE_RESOURCE_TYPE, { RoleArn: { 'Fn::GetAtt': [role, 'Arn'] } });
    template.hasResource('AWS::IAM::Role', {
      Properties: Match.objectLike({
        AssumeRolePolicyDocument: Match.objectLike({
          Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
        }),
      }),
      DeletionPolicy: 'Retain',
    });
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0];
    expect(stage?.DependsOn).toContain(setting);
    // Never CDK's own AWS::ApiGateway::Account, which replaces a role another stack set.
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
    const setter = logicalId(template, FUNCTION, 'FrontDoorAccountLoggingRoleSetter');
    template.hasResourceProperties(ACCOUNT_ROLE_RESOURCE_TYPE, {
      ServiceToken: { 'Fn::GetAtt': [setter, 'Arn'] },
    });
  });

  it('sizes the throttle for a big grid within the account limits, and takes a given one as it is', () => {
    const big = readGridConfig(MULTI_POOL);
    for (const pool of Object.values(big.pools)) pool.maxSessions = 400;
    expect(stageThrottle(big)).toEqual({ rateLimit: 10_000, burstLimit: 5_000 });
    const small = readGridConfig(undefined);
    expect(stageThrottle(small)).toEqual({ rateLimit: 50, burstLimit: 100 });
    const given = Template.fromStack(
      gridStack({ configFile: MULTI_POOL, frontDoor: { throttle: { rateLimit: 900, burstLimit: 1200 } } }),
    );
    given.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 900, ThrottlingBurstLimit: 1200 })],
    });
  });

  it('runs the router on Node 22, arm64, in the private subnets, 15 minutes and 512 MB', () => {
    const props = functionProps(template, 'FrontDoorRouter');
    expect(props).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: 900,
      MemorySize: 512,
      VpcConfig: {
        // Its own group, and the cleanup's, whose every-minute passes keep the shared interfaces in use.
        SecurityGroupIds: ['FrontDoorSecurityGroup', 'CleanupSecurityGroup'].map((prefix) => ({
          'Fn::GetAtt': [logicalId(template, 'AWS::EC2::SecurityGroup', prefix), 'GroupId'],
        })),
        SubnetIds: privateSubnets(template).map((id) => ({ Ref: id })),
      },
    });
    expect(props.Environment.Variables).toMatchObject({
      GRIDGATE_CONFIG: '/var/task/gridgate.config.json',
      GRIDGATE_SECRET_ARN: { Ref: logicalId(template, 'AWS::SecretsManager::Secret', 'SigningKey') },
    });
    // No source maps for the router: reading one at every cold start costs ~100 ms (bench/README.md).
    expect(props.Environment.Variables.NODE_OPTIONS).toBeUndefined();
  });

  it('outputs the WebDriver URL under /wd/hub of the stage', () => {
    const api = logicalId(template, 'AWS::ApiGateway::RestApi', 'FrontDoorApi');
    const url = template.findOutputs('WebDriverUrl').WebDriverUrl?.Value;
    const stage = logicalId(template, 'AWS::ApiGateway::Stage', 'FrontDoorApiDeploymentStagegrid');
    expect(url['Fn::Join'][1]).toEqual(expect.arrayContaining([{ Ref: api }, { Ref: stage }, '/wd/hub']));
  });

  it('refuses a router timeout too short for a queued cold start', () => {
    expect(() => gridStack({ configFile: MULTI_POOL, frontDoor: { timeout: Duration.minutes(2) } })).toThrow(
      /must exceed timeouts.queue \+ timeouts.newSession \(240 s\)/,
    );
  });

  it('serves a custom domain and its wildcard (colour subdomains) with one certificate', () => {
    const zone = HostedZone.fromHostedZoneAttributes(new Stack(), 'Zone', {
      hostedZoneId: 'Z123',
      zoneName: 'example.com',
    });
    const withDomain = Template.fromStack(
      gridStack({
        configFile: MULTI_POOL,
        frontDoor: { customDomain: { domainName: 'grid.example.com', hostedZone: zone } },
      }),
    );
    withDomain.hasResourceProperties('AWS::CertificateManager::Certificate', {
      DomainName: 'grid.example.com',
      SubjectAlternativeNames: ['*.grid.example.com'],
    });
    for (const name of ['grid.example.com', '*.grid.example.com']) {
      withDomain.hasResourceProperties('AWS::ApiGateway::DomainName', {
        DomainName: name,
        SecurityPolicy: 'TLS_1_2',
      });
      withDomain.hasResourceProperties('AWS::Route53::RecordSet', { Name: `${name}.`, Type: 'A' });
    }
    // The router turns `blue.grid.example.com` into colour blue.
    const router =
      withDomain.findResources('AWS::Lambda::Function')[
        logicalId(withDomain, 'AWS::Lambda::Function', 'FrontDoorRouter')
      ];
    const deployment = JSON.stringify(router?.Properties.Environment.Variables.GRIDGATE_DEPLOYMENT);
    expect(deployment).toContain('\\"baseDomains\\":[\\"grid.example.com\\"]');
  });
});

describe('the front door alternatives', () => {
  it('function-url: RESPONSE_STREAM, no IAM auth (gridgate checks basic auth), no API Gateway', () => {
    const template = multiPoolTemplate({ frontDoor: { kind: 'function-url' } });
    template.resourceCountIs('AWS::ApiGateway::RestApi', 0);
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE', InvokeMode: 'RESPONSE_STREAM' });
    const url = template.findOutputs('WebDriverUrl').WebDriverUrl?.Value;
    expect(JSON.stringify(url)).toContain('FunctionUrl');
  });

  it('function-url: warns at synth that AWS documents no response streaming from within a VPC', () => {
    const warnings = (kind: FrontDoorKind) =>
      Annotations.fromStack(gridStack({ configFile: MULTI_POOL, frontDoor: { kind } })).findWarning(
        '*',
        Match.stringLikeRegexp('within a VPC environment'),
      );
    expect(warnings('function-url')).toHaveLength(1);
    expect(warnings('rest-api')).toEqual([]);
  });

  it('web-function: the Node server on nodejs24.x, application-managed auth, VPC egress through a connector', () => {
    const template = multiPoolTemplate({ frontDoor: { kind: 'web-function' } });
    template.resourceCountIs('AWS::ApiGateway::RestApi', 0);
    expect(Object.keys(template.findResources(FUNCTION)).some((id) => id.startsWith('FrontDoorRouter'))).toBe(
      false,
    );
    template.hasResourceProperties('AWS::Lambda::WebFunctionRevision', Match.objectLike({}));
    const revision = Object.values(template.findResources('AWS::Lambda::WebFunctionRevision'))[0]?.Properties;
    expect(JSON.stringify(revision)).toContain('nodejs24.x');
    expect(JSON.stringify(revision)).toContain('GRIDGATE_DEPLOYMENT');
    template.hasResourceProperties('AWS::Lambda::WebFunctionEndpoint', { AuthType: 'ApplicationManaged' });
    template.resourceCountIs('AWS::Lambda::NetworkConnector', 1);
  });
});
