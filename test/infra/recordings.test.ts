/**
 * ecs pools with a video recorder (infra/examples/fargate-chrome-video.json): docker-selenium's recorder
 * beside the browser in the task definition, the recordings bucket it uploads to, and the least IAM each
 * side needs; the task definition is one ECS would register, and the stack passes cdk-nag.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { apiShape, refuseFargateTaskDefinition } from '../support/ecs-task-definition-rules';
import { gridStack, logicalId, ROOT } from './grid-stack-fixture';

const EXAMPLE = join(ROOT, 'infra/examples/fargate-chrome-video.json');
const TASK_DEFINITION = 'AWS::ECS::TaskDefinition';

const stack = gridStack({ configFile: EXAMPLE }, { schemaCheck: true });
const template = Template.fromStack(stack);
const bucket = logicalId(template, 'AWS::S3::Bucket', 'RecordingsBucket');
const videos = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, '/videos/*']] };

/** Every IAM statement of the template that names an S3 action, with its role. */
function s3Statements(t: Template) {
  return Object.values(t.findResources('AWS::IAM::Policy')).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
      .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('s3:')))
      .map((statement) => ({ roles: policy.Properties.Roles, ...statement })),
  );
}

describe('the recordings bucket', () => {
  it('is encrypted, private, SSL-only, and expires videos after the configured retention', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      // The example's recording.retention is 72h.
      LifecycleConfiguration: {
        Rules: [
          Match.objectLike({
            Prefix: 'videos/',
            ExpirationInDays: 3,
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
            Status: 'Enabled',
          }),
        ],
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucket },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
  });

  it('is not made when no pool records', () => {
    const plain = Template.fromStack(
      gridStack({ configFile: join(ROOT, 'infra/examples/fargate-chrome.json') }),
    );
    expect(plain.findResources('AWS::S3::Bucket')).toEqual({});
  });

  it('keeps a video at least a day (S3 expires whole days)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gridgate-recordings-'));
    const file = join(dir, 'short.json');
    writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(readFileSync(EXAMPLE, 'utf8')), recording: { retention: '2h' } }),
    );
    const short = Template.fromStack(gridStack({ configFile: file }));
    short.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 1 })] },
    });
  });
});

describe('docs/video-and-logs.md', () => {
  it('shows the example config as it is in infra/examples', () => {
    const page = readFileSync(join(ROOT, 'docs/video-and-logs.md'), 'utf8');
    const section = page.slice(page.indexOf('## ecs pools'));
    const block = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(JSON.parse(block ?? 'null')).toEqual(JSON.parse(readFileSync(EXAMPLE, 'utf8')));
  });
});

/** The containers, with `name`'s dependsOn replaced by one dependency. */
function withDependency(
  containers: Record<string, unknown>[],
  name: string,
  dependency: { containerName: string; condition: string },
): Record<string, unknown>[] {
  return containers.map((c) => (c.name === name ? { ...c, dependsOn: [dependency] } : c));
}

describe('the video recorder sidecar', () => {
  const definition = template.findResources(TASK_DEFINITION)[
    logicalId(template, TASK_DEFINITION, 'BrowsersPoolchromespot')
  ] as { Properties: { ContainerDefinitions: Record<string, unknown>[] } };

  it('runs docker-selenium’s recorder beside the browser, uploading to the bucket’s videos/', () => {
    const [browser, video] = definition.Properties.ContainerDefinitions as {
      Name: string;
      Essential?: boolean;
      Environment: { Name: string; Value: unknown }[];
    }[];
    expect(browser?.Name).toBe('browser');
    expect(video?.Name).toBe('video');
    // The browser's end ends the task; the recorder's never does.
    expect(browser?.Essential).toBe(true);
    expect(video?.Essential).toBe(false);
    const env = Object.fromEntries((video?.Environment ?? []).map(({ Name, Value }) => [Name, Value]));
    expect(env).toMatchObject({
      SE_VIDEO_RECORD_STANDALONE: 'true',
      DISPLAY_CONTAINER_NAME: 'localhost',
      SE_NODE_PORT: '4444',
      SE_VIDEO_FILE_NAME: 'auto',
      SE_VIDEO_FILE_NAME_SUFFIX: 'false',
      SE_VIDEO_UPLOAD_ENABLED: 'true',
      SE_UPLOAD_DESTINATION_PREFIX: { 'Fn::Join': ['', ['s3://', { Ref: bucket }, '/videos']] },
      RCLONE_CONFIG_S3_TYPE: 's3',
      RCLONE_CONFIG_S3_PROVIDER: 'AWS',
      RCLONE_CONFIG_S3_ENV_AUTH: 'true',
      RCLONE_CONFIG_S3_NO_CHECK_BUCKET: 'true',
      RCLONE_CONFIG_S3_NO_HEAD: 'true',
      RCLONE_CONFIG_S3_ACL: 'bucket-owner-full-control',
    });
    // No credentials in the environment: the task role's are used.
    expect(Object.keys(env).filter((name) => /KEY|SECRET|TOKEN/.test(name))).toEqual([]);
  });

  it('is stopped before the browser and given the time its own shutdown takes', () => {
    const [browser, video] = definition.Properties.ContainerDefinitions as {
      Name: string;
      DependsOn?: unknown;
      StopTimeout?: number;
    }[];
    // ECS reverses dependencies on shutdown (API_ContainerDependency): the recorder finishes its file while
    // the browser's display is still there.
    expect(video?.DependsOn).toEqual([{ ContainerName: 'browser', Condition: 'START' }]);
    expect(browser?.DependsOn).toBeUndefined();
    // docker-selenium's recorder stops within 65 s (supervisord: 30 + 30 + 5); Fargate allows 120.
    expect(video?.StopTimeout).toBe(70);
    expect(browser?.StopTimeout).toBe(120);
  });

  it('is a task definition ECS would register, and the rules refuse ones it would not', () => {
    const shape = apiShape(definition.Properties);
    expect(() => refuseFargateTaskDefinition(shape)).not.toThrow();
    const containers = shape.containerDefinitions as Record<string, unknown>[];
    const variants: [string, Record<string, unknown>][] = [
      [
        'no essential container',
        { containerDefinitions: containers.map((c) => ({ ...c, essential: false })) },
      ],
      [
        'two containers of one name',
        { containerDefinitions: containers.map((c) => ({ ...c, name: 'browser' })) },
      ],
      [
        'a port mapped twice',
        { containerDefinitions: containers.map((c) => ({ ...c, portMappings: [{ containerPort: 4444 }] })) },
      ],
      [
        'a stop timeout over 120 s',
        { containerDefinitions: containers.map((c) => ({ ...c, stopTimeout: 121 })) },
      ],
      ['memory Fargate does not offer', { memory: '1536' }],
      [
        'a dependency on a container not in the definition',
        {
          containerDefinitions: withDependency(containers, 'video', {
            containerName: 'vnc',
            condition: 'START',
          }),
        },
      ],
      [
        'a dependency condition ECS does not know',
        {
          containerDefinitions: withDependency(containers, 'video', {
            containerName: 'browser',
            condition: 'STOP',
          }),
        },
      ],
      ...(['COMPLETE', 'SUCCESS'] as const).map((condition): [string, Record<string, unknown>] => [
        `waiting for the essential browser to ${condition === 'COMPLETE' ? 'exit' : 'succeed'}`,
        {
          containerDefinitions: withDependency(containers, 'video', { containerName: 'browser', condition }),
        },
      ]),
    ];
    for (const [what, change] of variants) {
      expect(() => refuseFargateTaskDefinition({ ...shape, ...change }), what).toThrow();
    }
    // COMPLETE is allowed when the container waited for is not essential.
    const onRecorder = withDependency(containers, 'browser', {
      containerName: 'video',
      condition: 'COMPLETE',
    });
    expect(() => refuseFargateTaskDefinition({ ...shape, containerDefinitions: onRecorder })).not.toThrow();
  });
});

describe('recordings IAM', () => {
  it('lets tasks only put videos, the router only read them and the cleanup only delete them', () => {
    const statements = s3Statements(template);
    const taskRole = logicalId(template, 'AWS::IAM::Role', 'BrowsersPoolchromespotTaskRole');
    expect(statements).toHaveLength(3);
    expect(statements).toContainEqual(
      expect.objectContaining({
        roles: [{ Ref: taskRole }],
        Action: ['s3:AbortMultipartUpload', 's3:PutObject'],
        Effect: 'Allow',
        Resource: videos,
      }),
    );
    const read = statements.find((statement) => statement.Action === 's3:GetObject');
    expect(read).toMatchObject({ Effect: 'Allow', Resource: videos });
    expect(JSON.stringify(read?.roles)).toMatch(/FrontDoor/);
    // Exactly DeleteObject, on videos/ only, for the cleanup's role alone (recording.keep: failed).
    const deletion = statements.find((statement) => [statement.Action].flat().includes('s3:DeleteObject'));
    expect(deletion).toMatchObject({ Action: 's3:DeleteObject', Effect: 'Allow', Resource: videos });
    const cleanupRole = logicalId(template, 'AWS::IAM::Role', 'CleanupFunctionServiceRole');
    expect(deletion?.roles).toEqual([{ Ref: cleanupRole }]);
  });

  it('passes cdk-nag AwsSolutions with only written-down acknowledgements', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  it('passes the bucket to the router and the cleanup in GRIDGATE_DEPLOYMENT', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          GRIDGATE_DEPLOYMENT: Match.objectLike({
            'Fn::Join': Match.arrayWith([Match.arrayWith([Match.stringLikeRegexp('"recordingsBucket":"')])]),
          }),
        }),
      },
    });
  });
});
