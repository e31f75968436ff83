import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { EcsPoolConfig } from '../../functions/core/config';
import { imageTag } from '../../infra/browser-image-tag';
import { isChromiumImage } from '../../infra/chromium-image';
import { readGridConfig } from '../../infra/grid-config';
import { gridStack, logicalId, MULTI_POOL, multiPoolTemplate, ROOT } from './grid-stack-fixture';

const TASK_DEFINITION = 'AWS::ECS::TaskDefinition';

describe('the browser fleet (multi-pool example: chrome-spot on x86 Spot, chromium-arm on arm64 on-demand)', () => {
  const template = multiPoolTemplate();
  const chrome = logicalId(template, TASK_DEFINITION, 'BrowsersPoolchromespot');
  const chromium = logicalId(template, TASK_DEFINITION, 'BrowsersPoolchromiumarm');
  const cluster = logicalId(template, 'AWS::ECS::Cluster', 'BrowsersCluster');

  it('gives the cluster both Fargate capacity providers and Container Insights', () => {
    template.hasResourceProperties('AWS::ECS::ClusterCapacityProviderAssociations', {
      Cluster: { Ref: cluster },
      CapacityProviders: Match.arrayWith(['FARGATE', 'FARGATE_SPOT']),
    });
    template.hasResourceProperties('AWS::ECS::Cluster', {
      ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }],
    });
  });

  it('makes one task definition per ecs pool and none for the hub pool', () => {
    template.resourceCountIs(TASK_DEFINITION, 2);
  });

  it('sizes each task from its pool: CPU, memory, architecture, container name and port', () => {
    template.hasResourceProperties(TASK_DEFINITION, {
      Cpu: '1024',
      Memory: '2048',
      RuntimePlatform: { CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' },
      ContainerDefinitions: [
        Match.objectLike({ Name: 'browser', PortMappings: [{ ContainerPort: 4444, Protocol: 'tcp' }] }),
      ],
    });
    const definitions = template.findResources(TASK_DEFINITION);
    expect(definitions[chromium]?.Properties).toMatchObject({
      Cpu: '2048',
      Memory: '4096',
      RuntimePlatform: { CpuArchitecture: 'ARM64' },
      ContainerDefinitions: [{ Name: 'chromium' }],
    });
    expect(definitions[chrome]?.Properties.RuntimePlatform.CpuArchitecture).toBe('X86_64');
  });

  it('runs one session per task, with the idle timeout from the config, no /dev/shm and managed downloads', () => {
    for (const id of [chrome, chromium]) {
      const container = template.findResources(TASK_DEFINITION)[id]?.Properties.ContainerDefinitions[0];
      expect(
        Object.fromEntries(
          container.Environment.map((e: { Name: string; Value: string }) => [e.Name, e.Value]),
        ),
      ).toEqual({
        SE_NODE_MAX_SESSIONS: '1',
        SE_DRAIN_AFTER_SESSION_COUNT: '1',
        // timeouts.idle is 4m in the example, below the REST API's 5-minute stream idle limit.
        SE_NODE_SESSION_TIMEOUT: '240',
        SE_BROWSER_ARGS_DISABLE_DSHM: '--disable-dev-shm-usage',
        SE_START_XVFB: 'true',
        SE_NODE_ENABLE_MANAGED_DOWNLOADS: 'true',
      });
      // The 2-minute Spot notice, the Fargate maximum.
      expect(container.StopTimeout).toBe(120);
      expect(container.LogConfiguration).toMatchObject({
        LogDriver: 'awslogs',
        Options: { 'awslogs-group': { Ref: logicalId(template, 'AWS::Logs::LogGroup', 'BrowsersLogs') } },
      });
    }
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
  });

  it('gives a browser task of a pool without a recorder a role that may do nothing', () => {
    // ECS hands every container of the task its role's credentials (169.254.170.2, named by
    // AWS_CONTAINER_CREDENTIALS_RELATIVE_URI in its environment): a session's code that found them could
    // use whatever the role may. Without a recorder the role holds no policy at all.
    for (const id of [chrome, chromium]) {
      const role = template.findResources(TASK_DEFINITION)[id]?.Properties.TaskRoleArn['Fn::GetAtt'][0];
      const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
        JSON.stringify(policy.Properties.Roles ?? []).includes(`"${role}"`),
      );
      expect(policies, id).toEqual([]);
      expect(
        template.findResources('AWS::IAM::Role')[role]?.Properties.ManagedPolicyArns,
        id,
      ).toBeUndefined();
    }
  });

  it('ends every task itself past the longest session it could hold, even with gridgate gone', () => {
    for (const id of [chrome, chromium]) {
      const container = template.findResources(TASK_DEFINITION)[id]?.Properties.ContainerDefinitions[0];
      // newSession 3 min + maxAge 1 h + 5 minutes' grace; SIGKILL a Spot notice's 120 s after SIGTERM.
      expect(container.Command).toEqual(['timeout', '--kill-after=120s', '4080s', '/opt/bin/entry_point.sh']);
      // The browser container is essential: its exit stops the task (and a recorder beside it).
      expect(container.Essential).toBe(true);
    }
    // A warm task may first wait idle for its pool's idleTtl before a session claims it.
    const example = readGridConfig(MULTI_POOL);
    const spot = example.pools['chrome-spot'] as EcsPoolConfig;
    const warm = multiPoolTemplate({
      config: {
        ...example,
        pools: { ...example.pools, 'chrome-spot': { ...spot, warm: { min: 0, max: 2, idleTtl: 900_000 } } },
      },
    });
    warm.hasResourceProperties(TASK_DEFINITION, {
      ContainerDefinitions: [
        Match.objectLike({
          Name: 'browser',
          Command: ['timeout', '--kill-after=120s', '4980s', '/opt/bin/entry_point.sh'],
        }),
      ],
    });
  });

  it('warns at synth of a new-session budget shorter than a cold start, naming the cold pools', () => {
    const warnings = (newSession: number) => {
      const example = readGridConfig(MULTI_POOL);
      const stack = gridStack({ config: { ...example, timeouts: { ...example.timeouts, newSession } } });
      return Annotations.fromStack(stack)
        .findWarning('*', Match.stringLikeRegexp('shorter than a cold start'))
        .map((warning) => String(warning.entry.data));
    };
    expect(warnings(60_000)).toEqual([
      expect.stringMatching(
        /timeouts.newSession \(60 s\) is shorter than a cold start of pools chrome-spot, chromium-arm/,
      ),
    ]);
    expect(warnings(120_000)).toEqual([]);
  });

  it('caps the browser idle timeout at the REST front door idle limit (5 minutes)', () => {
    const example = readGridConfig(MULTI_POOL);
    const long = multiPoolTemplate({
      config: { ...example, timeouts: { ...example.timeouts, idle: 600_000 } },
    });
    long.hasResourceProperties(TASK_DEFINITION, {
      ContainerDefinitions: [
        Match.objectLike({
          Environment: Match.arrayWith([{ Name: 'SE_NODE_SESSION_TIMEOUT', Value: '300' }]),
        }),
      ],
    });
  });

  it('pulls images mirrored into the account ECR by default', () => {
    const image = template.findResources(TASK_DEFINITION)[chrome]?.Properties.ContainerDefinitions[0].Image;
    expect(JSON.stringify(image)).toContain('container-assets');
  });

  it('warns at synth of a pool on a moving tag, mirrored or not, and not of a dated tag or a digest', () => {
    const warnings = (image: string, mirrorImages = true) => {
      const config = readGridConfig(MULTI_POOL);
      const pool = config.pools['chrome-spot'] as EcsPoolConfig;
      pool.image = image;
      return Annotations.fromStack(gridStack({ config, browsers: { mirrorImages } }))
        .findWarning('*', Match.stringLikeRegexp('moving tag'))
        .map((warning) => String(warning.entry.data));
    };
    expect(warnings('selenium/standalone-chrome:latest')).toEqual([
      expect.stringMatching(/pool "chrome-spot".*never updates.*Pin a dated tag/),
    ]);
    expect(warnings('selenium/standalone-chrome')).toHaveLength(1);
    expect(warnings('registry.example.com:5000/browsers/chrome', false)).toEqual([
      expect.stringMatching(/changes under running suites/),
    ]);
    expect(warnings('selenium/standalone-chrome:4.39.0-20251202')).toEqual([]);
    expect(warnings(`selenium/standalone-chrome@sha256:${'a'.repeat(64)}`)).toEqual([]);
  });

  it('pins one docker-selenium release in every example: browsers and recorders from the same day', () => {
    const releases = new Set<string>();
    for (const example of readdirSync(join(ROOT, 'infra/examples'))) {
      const config = readGridConfig(join(ROOT, 'infra/examples', example));
      for (const pool of Object.values(config.pools)) {
        const images = [
          // gridgate's own chromium-only image is built from the repository, not pulled from a release.
          ...('image' in pool && !isChromiumImage(pool.image) ? [pool.image] : []),
          ...('recorder' in pool && pool.recorder ? [pool.recorder.image] : []),
        ];
        // docker-selenium tags every image of a release with its date: 4.39.0-20251202, ffmpeg-8.0-20251202.
        for (const image of images) releases.add(`${imageTag(image)?.match(/-(\d{8})$/)?.[1]}`);
      }
    }
    expect([...releases]).toEqual(['20251202']);
  });

  it('pins every example config image by a dated tag or digest', () => {
    for (const example of readdirSync(join(ROOT, 'infra/examples'))) {
      const config = readGridConfig(join(ROOT, 'infra/examples', example));
      for (const pool of Object.values(config.pools)) {
        if ('image' in pool && !isChromiumImage(pool.image))
          expect([example, imageTag(pool.image)]).not.toEqual([example, 'latest']);
      }
    }
  });

  it('pulls straight from the registry when mirroring is off', () => {
    const direct = multiPoolTemplate({ browsers: { mirrorImages: false } });
    direct.hasResourceProperties(TASK_DEFINITION, {
      ContainerDefinitions: [Match.objectLike({ Image: 'selenium/standalone-chromium:4.39.0-20251202' })],
    });
  });
});

describe('the browser security group', () => {
  const template = multiPoolTemplate();
  const browsers = logicalId(template, 'AWS::EC2::SecurityGroup', 'BrowsersSecurityGroup');
  const router = logicalId(template, 'AWS::EC2::SecurityGroup', 'FrontDoorSecurityGroup');
  const cleanup = logicalId(template, 'AWS::EC2::SecurityGroup', 'CleanupSecurityGroup');

  it('admits the WebDriver port from the router and the cleanup only', () => {
    const rules = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'))
      .map((rule) => rule.Properties)
      .filter((rule) => rule.GroupId['Fn::GetAtt'][0] === browsers);
    expect(rules).toEqual(
      [router, cleanup].map((source) => ({
        Description: 'WebDriver from the gridgate router',
        GroupId: { 'Fn::GetAtt': [browsers, 'GroupId'] },
        IpProtocol: 'tcp',
        FromPort: 4444,
        ToPort: 4444,
        SourceSecurityGroupId: { 'Fn::GetAtt': [source, 'GroupId'] },
      })),
    );
    const group = template.findResources('AWS::EC2::SecurityGroup')[browsers]?.Properties;
    expect(group.SecurityGroupIngress).toBeUndefined();
  });
});

describe('the router can start, watch and stop only the grid’s browsers', () => {
  const template = multiPoolTemplate();
  const cluster = logicalId(template, 'AWS::ECS::Cluster', 'BrowsersCluster');
  const statements = (prefix: string) =>
    template.findResources('AWS::IAM::Policy')[logicalId(template, 'AWS::IAM::Policy', prefix)]?.Properties
      .PolicyDocument.Statement as Array<Record<string, unknown>>;
  const tasksOfCluster = {
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':ecs:',
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        ':task/',
        { Ref: cluster },
        '/*',
      ],
    ],
  };

  it('runs only the task definitions of the ecs pools, only in the grid cluster', () => {
    const definitions = Object.keys(template.findResources(TASK_DEFINITION)).map((id) => ({ Ref: id }));
    expect(statements('FrontDoorRouterServiceRoleDefaultPolicy')).toContainEqual({
      Action: 'ecs:RunTask',
      Effect: 'Allow',
      Resource: definitions,
      Condition: { ArnEquals: { 'ecs:cluster': { 'Fn::GetAtt': [cluster, 'Arn'] } } },
    });
  });

  it('passes only the task and execution roles of those task definitions, only to ECS tasks', () => {
    const roles = Object.values(template.findResources(TASK_DEFINITION)).flatMap((definition) => [
      definition.Properties.ExecutionRoleArn,
      definition.Properties.TaskRoleArn,
    ]);
    const passRole = statements('FrontDoorRouterServiceRoleDefaultPolicy').find(
      (s) => s.Action === 'iam:PassRole',
    );
    expect(passRole?.Resource).toEqual(expect.arrayContaining(roles));
    expect(passRole?.Resource).toHaveLength(4);
    expect(passRole?.Condition).toEqual({
      StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' },
    });
  });

  it('tags tasks only while RunTask creates them, and describes and stops only the cluster’s tasks', () => {
    const router = statements('FrontDoorRouterServiceRoleDefaultPolicy');
    expect(router).toContainEqual({
      Action: 'ecs:TagResource',
      Effect: 'Allow',
      Resource: tasksOfCluster,
      Condition: { StringEquals: { 'ecs:CreateAction': 'RunTask' } },
    });
    expect(router).toContainEqual({
      Action: ['ecs:DescribeTasks', 'ecs:StopTask'],
      Effect: 'Allow',
      Resource: tasksOfCluster,
    });
  });

  it('reads the signing key and reads and writes the session table, and nothing else', () => {
    const router = statements('FrontDoorRouterServiceRoleDefaultPolicy');
    const secret = logicalId(template, 'AWS::SecretsManager::Secret', 'SigningKey');
    const table = logicalId(template, 'AWS::DynamoDB::Table', 'Sessions');
    expect(router).toContainEqual(
      expect.objectContaining({
        Action: expect.arrayContaining(['secretsmanager:GetSecretValue']),
        Resource: { Ref: secret },
      }),
    );
    expect(router).toContainEqual(
      expect.objectContaining({
        Action: expect.arrayContaining(['dynamodb:UpdateItem', 'dynamodb:Query']),
        Resource: { 'Fn::GetAtt': [table, 'Arn'] },
      }),
    );
    expect(router.map((s) => s.Resource)).not.toContain('*');
  });

  it('lets the cleanup list the cluster’s tasks and stop them, but not start any', () => {
    const cleanup = statements('CleanupFunctionServiceRoleDefaultPolicy');
    expect(cleanup).toContainEqual({
      Action: 'ecs:ListTasks',
      Effect: 'Allow',
      Resource: '*',
      Condition: { ArnEquals: { 'ecs:cluster': { 'Fn::GetAtt': [cluster, 'Arn'] } } },
    });
    expect(cleanup).toContainEqual({
      Action: ['ecs:DescribeTasks', 'ecs:StopTask'],
      Effect: 'Allow',
      Resource: tasksOfCluster,
    });
    expect(JSON.stringify(cleanup)).not.toMatch(/RunTask|PassRole/);
  });
});
