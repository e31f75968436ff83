import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import type { FrontDoorKind } from '../../infra/front-door';
import { readGridConfig } from '../../infra/grid-config';
import type { GridgateStackProps } from '../../infra/gridgate-stack';
import { gridStack, LOOKUP_ENV, LOOKUPS, MULTI_POOL, ROOT } from './grid-stack-fixture';

const TABLE = 'AWS::DynamoDB::Table';
const SECRET = 'AWS::SecretsManager::Secret';

const dir = mkdtempSync(join(tmpdir(), 'gridgate-infra-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configFile(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function gridgateStack(props: Partial<GridgateStackProps> = {}) {
  return gridStack(props, { schemaCheck: true });
}

describe('the session table', () => {
  const template = Template.fromStack(gridgateStack());

  it('is the only table, billed on demand, keyed by pk and sk strings', () => {
    template.resourceCountIs(TABLE, 1);
    template.hasResourceProperties(TABLE, {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
    });
  });

  it('expires items at expiresAt', () => {
    template.hasResourceProperties(TABLE, {
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('has point-in-time recovery and encryption with the AWS-managed key', () => {
    template.hasResourceProperties(TABLE, {
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true, KMSMasterKeyId: Match.absent() },
    });
  });

  it('outputs its name and ARN', () => {
    const table = Object.keys(template.findResources(TABLE))[0];
    template.hasOutput('SessionTableName', { Value: { Ref: table } });
    template.hasOutput('SessionTableArn', { Value: { 'Fn::GetAtt': [table, 'Arn'] } });
  });
});

describe('the signing key', () => {
  const template = Template.fromStack(gridgateStack());

  it('is a generated 64-character secret of letters and digits', () => {
    template.resourceCountIs(SECRET, 1);
    template.hasResourceProperties(SECRET, {
      GenerateSecretString: {
        PasswordLength: 64,
        ExcludePunctuation: true,
        SecretStringTemplate: Match.absent(),
      },
      SecretString: Match.absent(),
    });
  });

  it('outputs its name and ARN', () => {
    const secret = Object.keys(template.findResources(SECRET))[0];
    template.hasOutput('SigningKeySecretArn', { Value: { Ref: secret } });
    template.hasOutput('SigningKeySecretName', { Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) });
  });
});

describe('removal policy', () => {
  it('retains the table and the secret when the stack is deleted or they are replaced', () => {
    const template = Template.fromStack(gridgateStack());
    for (const type of [TABLE, SECRET]) {
      template.hasResource(type, { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });

  it('can be set to destroy, for throwaway stacks', () => {
    const template = Template.fromStack(gridgateStack({ removalPolicy: RemovalPolicy.DESTROY }));
    for (const type of [TABLE, SECRET]) {
      template.hasResource(type, { DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    }
  });
});

describe('checks', () => {
  it('synthesizes without CDK warnings or errors, as cdk deploy does (credentials: the lookups answer)', () => {
    const annotations = Annotations.fromStack(
      gridStack({ env: LOOKUP_ENV }, { schemaCheck: true, context: LOOKUPS }),
    );
    expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
    expect(annotations.findError('*', Match.anyValue())).toEqual([]);
  });

  // cdk-nag 3 is a policy-validation plugin, not an aspect: findings go to the validation report, never to
  // Annotations, so the report is read directly.
  it('passes cdk-nag AwsSolutions with only written-down acknowledgements', () => {
    const report = new AwsSolutionsChecks().validateScope(gridgateStack());
    expect(report.violations).toEqual([]);
    expect(report.success).toBe(true);
  });

  it.each<FrontDoorKind>(['rest-api', 'function-url', 'web-function'])(
    'passes cdk-nag with several pools, alarm mail and the %s front door',
    (kind) => {
      const stack = gridStack({
        configFile: MULTI_POOL,
        frontDoor: { kind },
        alarms: { email: 'ops@example.com' },
      });
      expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
    },
  );

  it('passes cdk-nag with NAT gateways and a custom domain', () => {
    const stack = gridStack({
      configFile: MULTI_POOL,
      network: { layout: 'nat-gateway', natGateways: 2 },
      frontDoor: { customDomain: { domainName: 'grid.example.com' } },
    });
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  it('warns that a public hub is unreachable in the endpoints layout, and not where there is NAT', () => {
    const hub = configFile('public-hub.json', {
      browsers: { firefox: { versions: { latest: { pools: ['cloud'] } } } },
      pools: { cloud: { kind: 'hub', url: 'https://hub.example.com/wd/hub' } },
    });
    const warnings = (layout: 'endpoints' | 'nat-instance' | 'nat-gateway') =>
      Annotations.fromStack(gridStack({ configFile: hub, network: { layout } })).findWarning(
        '*',
        Match.stringLikeRegexp('hub pool "cloud"'),
      );
    expect(warnings('endpoints')).toHaveLength(1);
    expect(warnings('nat-instance')).toEqual([]);
    expect(warnings('nat-gateway')).toEqual([]);
  });

  it('has a cdk-nag check that does find problems (a table without point-in-time recovery)', () => {
    const stack = new Stack(new App(), 'Careless');
    new Table(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(report.violations.map((violation) => violation.ruleName)).toContain('AwsSolutions-DDB3');
  });
});

describe('the gridgate config', () => {
  it('defaults to the built-in catalog', () => {
    const config = readGridConfig(undefined);
    expect(Object.keys(config.pools)).toEqual(['local']);
    expect(config.browsers.chrome?.defaultVersion).toBe('stable');
  });

  it('names every bad key in one error', () => {
    const path = configFile('bad-keys.json', { prot: 4444, timeouts: { idle: 'five minutes' } });
    expect(() => readGridConfig(path)).toThrow(
      expect.objectContaining({
        problems: expect.arrayContaining([
          '(top level): Unrecognized key: "prot"',
          expect.stringMatching(/^timeouts\.idle: must be a duration/),
        ]),
      }),
    );
  });

  it('rejects a file that is not JSON, or is missing', () => {
    expect(() => readGridConfig(configFile('not-json.json', '{ port: 1 }'))).toThrow(/not valid JSON/);
    expect(() => readGridConfig(join(dir, 'missing.json'))).toThrow(/cannot read the file/);
  });

  it('bundles a users file only from beside the config file', () => {
    const outside = configFile('outside-users.json', { usersFile: '../users.htpasswd' });
    expect(() => gridStack({ configFile: outside })).toThrow(/must lie beside or below the config file/);
    const missing = configFile('missing-users.json', { usersFile: 'nobody.htpasswd' });
    expect(() => gridStack({ configFile: missing })).toThrow(/usersFile "nobody.htpasswd" not found/);
  });

  it('rejects a config context value that is not a path', () => {
    expect(() => readGridConfig({ port: 1 })).toThrow(/CDK context "config"/);
  });
});

describe('the CDK app (infra/app.ts, as `cdk synth` runs it)', () => {
  const run = promisify(execFile);

  function synth(context: Record<string, string>, outdir: string) {
    return run(join(ROOT, 'node_modules/.bin/tsx'), ['infra/app.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        // Bundling is exercised in bundled-config.test.ts.
        CDK_CONTEXT_JSON: JSON.stringify({ ...context, 'aws:cdk:bundling-stacks': [] }),
        CDK_OUTDIR: outdir,
        // The built-in CloudFormation schema check (WebAssembly, seconds of CPU) already ran on every
        // in-process synth above; this test is about app.ts's wiring.
        CDK_VALIDATION: 'false',
      },
    });
  }

  it('fails synthesis on an invalid config file, naming the bad key', async () => {
    const path = configFile('typo.json', { users: { alice: { maxSesions: 2 } } });
    const failure = synth({ config: path }, join(dir, 'out-bad'));
    await expect(failure).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        `gridgate: ${path} is not a valid gridgate config:\n  - users.alice: Unrecognized key: "maxSesions"`,
      ),
    });
  });

  it('synthesizes the stack from a valid config file', async () => {
    const path = configFile('good.json', { users: { alice: { maxSessions: 2 } } });
    const outdir = join(dir, 'out-good');
    await synth({ config: path }, outdir);
    const template = JSON.parse(readFileSync(join(outdir, 'Gridgate.template.json'), 'utf8'));
    expect(Object.values(template.Resources).map((resource) => (resource as { Type: string }).Type)).toEqual(
      expect.arrayContaining([TABLE, SECRET]),
    );
  });

  it('takes the REST stage throttle from -c throttleRate, with a burst of twice that', async () => {
    const outdir = join(dir, 'out-throttle');
    await synth({ throttleRate: '1500' }, outdir);
    const template = JSON.parse(readFileSync(join(outdir, 'Gridgate.template.json'), 'utf8'));
    const stage = Object.values(template.Resources).find(
      (resource) => (resource as { Type: string }).Type === 'AWS::ApiGateway::Stage',
    ) as { Properties: { MethodSettings: unknown[] } };
    expect(stage.Properties.MethodSettings).toEqual([
      expect.objectContaining({ ThrottlingRateLimit: 1500, ThrottlingBurstLimit: 3000 }),
    ]);
  });

  it('refuses a throttleRate that is not a whole number', async () => {
    await expect(synth({ throttleRate: 'fast' }, join(dir, 'out-fast'))).rejects.toMatchObject({
      stderr: expect.stringContaining('CDK context "throttleRate"'),
    });
  });

  it('refuses an unknown network layout', async () => {
    await expect(synth({ network: 'vpn' }, join(dir, 'out-vpn'))).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /CDK context "network"[\s\S]*must be one of nat-instance, nat-gateway, endpoints/,
      ),
    });
  });

  it('refuses an unknown front door', async () => {
    await expect(synth({ frontDoor: 'alb' }, join(dir, 'out-alb'))).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('CDK context "frontDoor"'),
    });
  });
});
