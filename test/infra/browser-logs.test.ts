/**
 * ecs sessions' browser logs in the synthesized stack: each browser container logs with awslogs to the
 * browsers' log group under the stream the router reads (browser-log-stream.ts), the router (and only it)
 * may GetLogEvents on exactly that group, the group's name reaches it in GRIDGATE_DEPLOYMENT, and the stack
 * passes cdk-nag.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { browserLogStream } from '../../functions/pools/ecs/browser-log-stream';
import { gridStack, logicalId, MULTI_POOL, ROOT } from './grid-stack-fixture';

const stack = gridStack({ configFile: join(ROOT, 'infra/examples/fargate-chrome.json') });
const template = Template.fromStack(stack);
const group = logicalId(template, 'AWS::Logs::LogGroup', 'BrowsersLogs');

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
}

// What lets a role read log events (the flow log's role only writes).
const READS = new Set(['logs:GetLogEvents', 'logs:FilterLogEvents', 'logs:StartQuery', 'logs:*', '*']);

/** Every IAM statement that lets a role read CloudWatch Logs events, with the policy it is in. */
function logsStatements(t: Template): (Statement & { policy: string })[] {
  return Object.entries(t.findResources('AWS::IAM::Policy')).flatMap(([policy, resource]) =>
    (resource.Properties.PolicyDocument.Statement as Statement[])
      .filter((statement) => [statement.Action].flat().some((action) => READS.has(action)))
      .map((statement) => ({ policy, ...statement })),
  );
}

describe('browser logs', () => {
  it('go from the browser container to the browsers’ log group under the stream the router reads', () => {
    const definition = Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0] as {
      Properties: { ContainerDefinitions: { Name: string; LogConfiguration: Record<string, unknown> }[] };
    };
    const [browser] = definition.Properties.ContainerDefinitions;
    expect(browser?.Name).toBe('browser');
    expect(browser?.LogConfiguration).toEqual({
      LogDriver: 'awslogs',
      Options: {
        'awslogs-group': { Ref: group },
        'awslogs-stream-prefix': 'chrome-spot',
        'awslogs-region': { Ref: 'AWS::Region' },
      },
    });
    // awslogs names a task's stream {awslogs-stream-prefix}/{container name}/{task ID}.
    const options = browser?.LogConfiguration.Options as Record<string, string>;
    expect(browserLogStream({ name: 'chrome-spot', containerName: browser?.Name as string }, 'abc')).toBe(
      `${options['awslogs-stream-prefix']}/${browser?.Name}/abc`,
    );
  });

  it('may be read by the router alone, with GetLogEvents on exactly that group', () => {
    const statements = logsStatements(template);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({
      policy: expect.stringMatching(/^FrontDoorRouter/),
      Effect: 'Allow',
      Action: 'logs:GetLogEvents',
    });
    // The group's ARN with its streams (:*) and without: both name that group and nothing else.
    const [streams, itself] = (statements[0]?.Resource ?? []) as unknown[];
    expect(streams).toEqual({ 'Fn::GetAtt': [group, 'Arn'] });
    expect(JSON.stringify(itself)).toMatch(new RegExp(`":log-group:",\\{"Ref":"${group}"\\}\\]\\]\\}$`));
    expect(statements[0]?.Resource).toHaveLength(2);
  });

  it('names the group to the router in GRIDGATE_DEPLOYMENT', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          GRIDGATE_DEPLOYMENT: {
            'Fn::Join': [
              '',
              Match.arrayWith([Match.stringLikeRegexp('"browserLogGroup":"$'), { Ref: group }]),
            ],
          },
        }),
      },
    });
  });

  it('are kept two weeks, or longer when recording.retention asks for more, counted from a session’s start', () => {
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
    // 720 h after a session of up to 1 h: 30 days and an hour, so CloudWatch Logs' next offer, 60 days.
    const example = JSON.parse(readFileSync(join(ROOT, 'infra/examples/fargate-chrome.json'), 'utf8'));
    const dir = mkdtempSync(join(tmpdir(), 'gridgate-log-retention-'));
    const file = join(dir, 'gridgate.json');
    writeFileSync(file, JSON.stringify({ ...example, $schema: undefined, recording: { retention: '720h' } }));
    const longer = gridStack({ configFile: file });
    expect(
      Object.values(Template.fromStack(longer).findResources('AWS::Logs::LogGroup')).filter(
        (group) => group.Properties.RetentionInDays === 60,
      ),
    ).toHaveLength(1);
    // A retention given to the stack wins, and synth says it is shorter than the config asks.
    const short = gridStack({ configFile: file, browsers: { logRetention: RetentionDays.TWO_WEEKS } });
    Template.fromStack(short).hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
    const warnings = Annotations.fromStack(short).findWarning(
      '*',
      Match.stringLikeRegexp('browsers.logRetention'),
    );
    expect(warnings).toHaveLength(1);
    rmSync(dir, { recursive: true, force: true });
  });

  it('grants nothing and names no group where there are no ecs pools', () => {
    const hubOnly = Template.fromStack(gridStack({ configFile: join(ROOT, 'infra/examples/eks-pool.json') }));
    expect(logsStatements(hubOnly)).toEqual([]);
    expect(JSON.stringify(hubOnly.toJSON())).not.toContain('browserLogGroup');
  });

  it('passes cdk-nag AwsSolutions, in the multi-pool stack too', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
    const multi = gridStack({ configFile: MULTI_POOL });
    expect(logsStatements(Template.fromStack(multi))).toHaveLength(1);
    expect(new AwsSolutionsChecks().validateScope(multi).violations).toEqual([]);
  });
});
