/** What a warm pool adds to the stack: the cleanup may start tasks, routers may tag a claimed one, and nothing more. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { describe, expect, it } from 'vitest';
import { gridStack, logicalId, MULTI_POOL } from './grid-stack-fixture';

/** The multi-pool example with a warm pool on chrome-spot, written where the stack can read it. */
function warmConfigFile(): string {
  const config = JSON.parse(readFileSync(MULTI_POOL, 'utf8'));
  config.pools['chrome-spot'].warm = { min: 1, max: 4, idleTtl: '15m' };
  delete config.$schema;
  const path = join(mkdtempSync(join(tmpdir(), 'gridgate-warm-')), 'gridgate.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

describe('a stack with an ecs warm pool', () => {
  const configFile = warmConfigFile();
  const template = Template.fromStack(gridStack({ configFile }));
  const statements = (prefix: string) =>
    template.findResources('AWS::IAM::Policy')[logicalId(template, 'AWS::IAM::Policy', prefix)]?.Properties
      .PolicyDocument.Statement as Array<Record<string, unknown>>;

  it('lets the cleanup start browser tasks, as the router does', () => {
    const cleanup = statements('CleanupFunctionServiceRoleDefaultPolicy');
    expect(cleanup).toContainEqual(expect.objectContaining({ Action: 'ecs:RunTask', Effect: 'Allow' }));
    expect(cleanup).toContainEqual(expect.objectContaining({ Action: 'iam:PassRole', Effect: 'Allow' }));
    expect(cleanup).toContainEqual(
      expect.objectContaining({
        Action: 'ecs:TagResource',
        Condition: { StringEquals: { 'ecs:CreateAction': 'RunTask' } },
      }),
    );
  });

  it('lets routers tag a claimed task with its session’s keys only, and the cleanup not at all', () => {
    const claimTag = {
      Action: 'ecs:TagResource',
      Effect: 'Allow',
      Resource: expect.anything(),
      Condition: {
        'ForAllValues:StringEquals': {
          'aws:TagKeys': ['gridgate:warm', 'gridgate:session', 'gridgate:user', 'gridgate:created-at'],
        },
      },
    };
    expect(statements('FrontDoorRouterServiceRoleDefaultPolicy')).toContainEqual(claimTag);
    expect(statements('CleanupFunctionServiceRoleDefaultPolicy')).not.toContainEqual(claimTag);
  });

  it('tells the cleanup its schedule interval, by which demand is counted', () => {
    const props = (t: Template) =>
      t.findResources('AWS::Lambda::Function')[logicalId(t, 'AWS::Lambda::Function', 'CleanupFunction')]
        ?.Properties;
    expect(props(template).Environment.Variables.CLEANUP_INTERVAL).toBe('1m');
    const every5 = Template.fromStack(
      gridStack({ configFile, cleanup: { schedule: Schedule.rate(Duration.minutes(5)) } }),
    );
    expect(props(every5).Environment.Variables.CLEANUP_INTERVAL).toBe('5m');
  });
});
