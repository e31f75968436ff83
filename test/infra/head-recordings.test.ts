/**
 * The Node server as the front door (`service` heads on Fargate, a `web-function`) serves ecs sessions'
 * videos and browser logs as the router Lambda does (functions/entry/start-grid.ts): its GRIDGATE_DEPLOYMENT
 * names the recordings bucket and the browsers' log group, and its role may GetObject under videos/ (the
 * HeadObject and the presigned GET) and GetLogEvents on that group, and nothing more of either.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import type { FrontDoorKind } from '../../infra/front-door';
import { gridStack, logicalId, ROOT } from './grid-stack-fixture';

const dir = mkdtempSync(join(tmpdir(), 'gridgate-head-recordings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The video example, with the heads a service front door needs.
const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'infra/examples/fargate-chrome-video.json'), 'utf8'));
const CONFIG = join(dir, 'gridgate.json');
writeFileSync(CONFIG, JSON.stringify({ ...EXAMPLE, $schema: undefined, heads: { min: 1, max: 2 } }));

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
}

/** Every IAM statement naming an S3 or CloudWatch Logs read, with the roles its policy is attached to. */
function readStatements(template: Template) {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as Statement[])
      .filter((statement) =>
        [statement.Action]
          .flat()
          .some((action) => action === 's3:GetObject' || action.startsWith('logs:Get')),
      )
      .map((statement) => ({ roles: JSON.stringify(policy.Properties.Roles), ...statement })),
  );
}

/** The parts of a Fn::Join right after the one that ends with `"name":"` (JSON inside a JSON string). */
function joinedAfter(value: unknown, name: string): unknown[] {
  const parts = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  return parts.flatMap((part, i) =>
    typeof part === 'string' && part.endsWith(`"${name}":"`) ? [parts[i + 1]] : [],
  );
}

/** The GRIDGATE_DEPLOYMENT the front door's Node server is given, and the role it runs as. */
function headOf(kind: FrontDoorKind, template: Template): { deployment: unknown; role: string } {
  if (kind === 'service') {
    const task = Object.values(template.findResources('AWS::ECS::TaskDefinition')).find((resource) =>
      resource.Properties.ContainerDefinitions.some((c: { Name: string }) => c.Name === 'head'),
    );
    const head = task?.Properties.ContainerDefinitions.find((c: { Name: string }) => c.Name === 'head');
    const variable = head.Environment.find((e: { Name: string }) => e.Name === 'GRIDGATE_DEPLOYMENT');
    return { deployment: variable.Value, role: JSON.stringify(task?.Properties.TaskRoleArn) };
  }
  const revision = Object.values(template.findResources('AWS::Lambda::WebFunctionRevision'))[0];
  const service = revision?.Properties.ServiceConfig;
  return {
    deployment: service?.EnvironmentVariables?.GRIDGATE_DEPLOYMENT,
    role: JSON.stringify(service?.ExecutionRoleArn),
  };
}

describe.each<FrontDoorKind>(['service', 'web-function'])('the %s front door’s Node server', (kind) => {
  const stack = gridStack({ configFile: CONFIG, frontDoor: { kind } });
  const template = Template.fromStack(stack);
  const bucket = logicalId(template, 'AWS::S3::Bucket', 'RecordingsBucket');
  const group = logicalId(template, 'AWS::Logs::LogGroup', 'BrowsersLogs');
  const head = headOf(kind, template);
  const roleId = /"Fn::GetAtt":\["([^"]+)","Arn"\]/.exec(head.role)?.[1] ?? head.role;

  it('is told the recordings bucket and the browsers’ log group in GRIDGATE_DEPLOYMENT', () => {
    expect(joinedAfter(head.deployment, 'recordingsBucket')).toEqual([{ Ref: bucket }]);
    expect(joinedAfter(head.deployment, 'browserLogGroup')).toEqual([{ Ref: group }]);
  });

  it('may read videos under videos/ and GetLogEvents on that group, and nothing more of either', () => {
    // What reads the recordings bucket or the browsers' log group (CDK's own copier reads its code bucket).
    const reads = readStatements(template).filter((statement) =>
      [bucket, group].some((id) => JSON.stringify(statement.Resource).includes(`"${id}"`)),
    );
    const mine = reads.filter((statement) => statement.roles.includes(roleId));
    expect(mine).toHaveLength(2);
    expect(mine).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, '/videos/*']] },
      }),
    );
    const logs = mine.find((statement) => statement.Action === 'logs:GetLogEvents');
    expect(logs?.Effect).toBe('Allow');
    expect(JSON.stringify(logs?.Resource)).toContain(`{"Fn::GetAtt":["${group}","Arn"]}`);
    // Nobody else in the stack reads them: the front door's Node server replaces the router Lambda.
    expect(reads).toHaveLength(2);
  });

  it('passes cdk-nag AwsSolutions', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });
});
