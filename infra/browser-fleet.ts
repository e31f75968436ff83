/**
 * Where browsers run: an ECS cluster with the FARGATE and FARGATE_SPOT capacity providers, one task
 * definition per `ecs` pool of the config (one session per task), and the security group that admits
 * WebDriver traffic from the router only. Also the IAM grants that start, watch and stop those tasks.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Annotations, ArnFormat, type CfnResource, Duration, Stack, Validations } from 'aws-cdk-lib';
import { type IConnectable, type ISubnet, type IVpc, Port, SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import {
  Cluster,
  type ContainerDefinition,
  ContainerDependencyCondition,
  ContainerImage,
  ContainerInsights,
  CpuArchitecture,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
} from 'aws-cdk-lib/aws-ecs';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { LifetimeTimeouts } from '../functions/core/browser-lifetime';
import type { EcsPoolConfig } from '../functions/core/config';
import type { EcsPoolDeployment } from '../functions/core/deployment';
import { browserLogStreamPrefix } from '../functions/pools/ecs/browser-log-stream';
import { TASK_TAGS } from '../functions/pools/ecs/task-tags';
import {
  RECORDER_CONTAINER,
  recorderEnvironment,
} from '../functions/pools/selenium-node/recorder-environment';
import { movingTagWarning } from './browser-image-tag';
import { selfEndingCommand, taskLifetimeSeconds } from './browser-task-lifetime';
import { CHROMIUM_IMAGE_FOLDER, isChromiumImage } from './chromium-image';
import { acknowledgeImagePull } from './image-pull-permissions';
import type { RecordingsBucket } from './recordings-bucket';
import { sociIndexedImage } from './soci-index';

export interface BrowserFleetProps {
  vpc: IVpc;
  /** Subnets of the tasks without public IPs (several AZs: Fargate capacity, Spot most of all, varies by AZ). */
  privateSubnets: ISubnet[];
  /** Subnets of pools with `assignPublicIp`. @default none (such pools are refused) */
  publicSubnets?: ISubnet[];
  /** The config's `ecs` pools: one task definition each. */
  pools: EcsPoolConfig[];
  /**
   * The browser's own idle timeout (SE_NODE_SESSION_TIMEOUT), a backstop behind gridgate's: the stack sets
   * it to the config's `timeouts.idle`, capped below the front door's idle limit.
   */
  sessionTimeout: Duration;
  /** The config's new-session timeout and maximum age: past them (and a grace) a task ends itself. */
  timeouts: LifetimeTimeouts;
  /**
   * Copy each pool's image into this account's ECR at deploy time (`cdk deploy` builds a one-line
   * Dockerfile, so it needs Docker). Fargate keeps no image cache and pulls the whole image for every
   * session: from Docker Hub that needs NAT and meets its pull rate limit; from in-Region ECR it goes
   * through the VPC endpoints. Turn off when `image` already names a registry the tasks can reach.
   * @default true
   */
  mirrorImages?: boolean;
  /** How long browser logs are kept. @default two weeks (GridgateStack: at least `recording.retention`, browser-log-retention.ts) */
  logRetention?: RetentionDays;
  /**
   * ECS Container Insights (the running-task and CPU/memory metrics on the dashboard). Billed as custom
   * metrics while tasks run. @default ContainerInsights.ENABLED
   */
  containerInsights?: ContainerInsights;
  /**
   * Build a Seekable OCI index beside every image the stack builds into ECR (soci-index.ts), so Fargate starts
   * a task's containers before their images are fully pulled. @default false
   */
  soci?: boolean;
  /** Where pools with a `recorder` upload their videos; needed by (and only by) such pools. */
  recordings?: RecordingsBucket;
}

/** Fargate lets a container at most 120 s to stop; a Spot interruption gives exactly 120 s of notice. */
const SPOT_STOP_TIMEOUT = Duration.seconds(120);
/**
 * What docker-selenium's recorder allows itself to stop, plus a margin: on SIGTERM its supervisord stops, one
 * after another, the recording (ffmpeg finishing the MP4 and handing it to the uploader; stopwaitsecs=30), the
 * uploader (rclone putting it in the bucket; 30) and the readiness probe (5), then exits (docker-selenium
 * Video/recorder.conf, uploader.conf): 65 s at most, so ECS's SIGKILL never cuts an upload supervisord would
 * have let finish. The browser is signalled after the recorder has stopped; of a Spot notice's 120 s it keeps
 * at least 50.
 */
const RECORDER_STOP_TIMEOUT = Duration.seconds(70);

/** The settings of a docker-selenium browser container. */
function dockerSeleniumEnvironment(sessionTimeout: Duration): Record<string, string> {
  return {
    // One session per task, then the node drains and the task exits: a fresh browser every time.
    SE_NODE_MAX_SESSIONS: '1',
    SE_DRAIN_AFTER_SESSION_COUNT: '1',
    SE_NODE_SESSION_TIMEOUT: String(sessionTimeout.toSeconds()),
    // Fargate cannot size /dev/shm (no sharedMemorySize), so Chrome must not use it.
    SE_BROWSER_ARGS_DISABLE_DSHM: '--disable-dev-shm-usage',
    // Chrome ≥ 127 needs a display even with --headless=new.
    SE_START_XVFB: 'true',
    // Selenium Grid 4's managed downloads (se:downloadsEnabled, /se/files), which gridgate passes through.
    SE_NODE_ENABLE_MANAGED_DOWNLOADS: 'true',
  };
}

export class BrowserFleet extends Construct {
  readonly cluster: Cluster;
  readonly securityGroup: SecurityGroup;
  readonly logGroup: LogGroup;
  /** By pool name. */
  readonly taskDefinitions: ReadonlyMap<string, FargateTaskDefinition>;
  private readonly pools: EcsPoolConfig[];
  private readonly props: BrowserFleetProps;

  constructor(scope: Construct, id: string, props: BrowserFleetProps) {
    super(scope, id);
    this.props = props;
    this.pools = props.pools;
    this.cluster = new Cluster(this, 'Cluster', {
      vpc: props.vpc,
      enableFargateCapacityProviders: true,
      containerInsightsV2: props.containerInsights ?? ContainerInsights.ENABLED,
    });
    this.securityGroup = new SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: 'gridgate browsers: WebDriver from the router only; out to the sites under test',
      // Browsers open whatever sites the tests visit.
      allowAllOutbound: true,
    });
    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention ?? RetentionDays.TWO_WEEKS });
    this.taskDefinitions = new Map(this.pools.map((pool) => [pool.name, this.taskDefinition(pool)]));
  }

  private taskDefinition(pool: EcsPoolConfig): FargateTaskDefinition {
    const arm = pool.architecture === 'arm64';
    const mirrored = this.props.mirrorImages ?? true;
    const chromium = isChromiumImage(pool.image);
    const moving = chromium ? undefined : movingTagWarning(pool.name, pool.image, mirrored);
    if (moving) Annotations.of(this).addWarningV2(`gridgate:movingImageTag:${pool.name}`, moving);
    const definition = new FargateTaskDefinition(this, `Pool-${pool.name}`, {
      cpu: pool.cpu,
      memoryLimitMiB: pool.memory,
      runtimePlatform: {
        cpuArchitecture: arm ? CpuArchitecture.ARM64 : CpuArchitecture.X86_64,
        operatingSystemFamily: OperatingSystemFamily.LINUX,
      },
    });
    const browser = definition.addContainer('Browser', {
      containerName: pool.containerName,
      image: this.image(pool, chromium ? undefined : pool.image),
      portMappings: [{ containerPort: pool.port }],
      // The task ends itself once it has outlived any session it could hold (browser-task-lifetime.ts).
      command: selfEndingCommand(taskLifetimeSeconds(pool, this.props.timeouts), SPOT_STOP_TIMEOUT),
      // The chromium-only image reads its port and nothing else; docker-selenium's settings are for its node.
      environment: chromium
        ? { SE_PORT: String(pool.port) }
        : dockerSeleniumEnvironment(this.props.sessionTimeout),
      stopTimeout: SPOT_STOP_TIMEOUT,
      // The router reads the browser's stream, {prefix}/{container}/{task ID}, as the session's log.
      logging: LogDrivers.awsLogs({ streamPrefix: browserLogStreamPrefix(pool), logGroup: this.logGroup }),
    });
    if (pool.recorder) this.addVideoRecorder(definition, browser, pool, pool.recorder.image);
    Validations.of(definition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason:
        'The environment holds docker-selenium settings (session counts, timeouts, browser flags), no secrets; they belong with the image they configure.',
    });
    acknowledgeImagePull(definition);
    return definition;
  }

  /**
   * docker-selenium's video recorder as a second, non-essential container (recorder-environment.ts: what it
   * watches, records and uploads), with the task role's credentials. The browser's end ends the task.
   */
  private addVideoRecorder(
    definition: FargateTaskDefinition,
    browser: ContainerDefinition,
    pool: EcsPoolConfig,
    image: string,
  ): void {
    const { recordings } = this.props;
    if (!recordings)
      throw new Error(`pool "${pool.name}" has a recorder but the stack has no recordings bucket`);
    const recorder = definition.addContainer('VideoRecorder', {
      containerName: RECORDER_CONTAINER,
      essential: false,
      image: this.image(pool, image),
      environment: recorderEnvironment({
        port: pool.port,
        bucket: recordings.bucket.bucketName,
        region: Stack.of(this).region,
      }),
      stopTimeout: RECORDER_STOP_TIMEOUT,
      logging: LogDrivers.awsLogs({ streamPrefix: browserLogStreamPrefix(pool), logGroup: this.logGroup }),
    });
    // Without a dependency ECS signals every container of a stopping task at once, and the browser's X display
    // may go before ffmpeg has finished the file. "When a dependency is defined for container startup, for
    // container shutdown it is reversed" (Amazon ECS API Reference, ContainerDependency): the recorder starts
    // once the browser has (START: the browser has no health check for HEALTHY) and is stopped, and given its
    // stopTimeout, before the browser is signalled.
    recorder.addContainerDependencies({ container: browser, condition: ContainerDependencyCondition.START });
    recordings.grantUpload(definition.taskRole);
  }

  /**
   * A container image of a pool's task: `image` copied into ECR (or pulled as it is, with mirroring off), or
   * with `image` undefined gridgate's chromium-only image, built from its folder (chromium-image.ts); with
   * `soci`, each image built into ECR gets a SOCI index (soci-index.ts).
   */
  private image(pool: EcsPoolConfig, image: string | undefined): ContainerImage {
    const mirrored = this.props.mirrorImages ?? true;
    if (image !== undefined && !mirrored) return ContainerImage.fromRegistry(image);
    const platform = pool.architecture === 'arm64' ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64;
    const source =
      image === undefined
        ? { directory: CHROMIUM_IMAGE_FOLDER, platform }
        : { directory: join(import.meta.dirname, 'browser-image'), buildArgs: { IMAGE: image }, platform };
    if (!this.props.soci) {
      const { directory, ...options } = source;
      return ContainerImage.fromAsset(directory, options);
    }
    const hash = createHash('sha256').update(JSON.stringify(source)).digest('hex').slice(0, 16);
    const asset =
      (this.node.tryFindChild(`Image-${hash}`) as DockerImageAsset | undefined) ??
      new DockerImageAsset(this, `Image-${hash}`, source);
    return sociIndexedImage(this, asset);
  }

  /** Admits each pool's WebDriver port from `router` (its security group), and nothing else. */
  allowWebDriverFrom(router: IConnectable): void {
    for (const port of new Set(this.pools.map((pool) => pool.port))) {
      this.securityGroup.connections.allowFrom(router, Port.tcp(port), 'WebDriver from the gridgate router');
    }
  }

  /** Admits each pool's noVNC port (the status page's live view) from `router`: heads that carry WebSockets. */
  allowVncFrom(router: IConnectable): void {
    for (const port of new Set(this.pools.flatMap((pool) => (pool.vncPort ? [pool.vncPort] : [])))) {
      this.securityGroup.connections.allowFrom(router, Port.tcp(port), 'noVNC from the gridgate heads');
    }
  }

  /** GRIDGATE_DEPLOYMENT's `pools`: where and how each pool's tasks start (functions/core/deployment.ts). */
  deploymentFacts(networks: string[]): Record<string, EcsPoolDeployment> {
    return Object.fromEntries(
      this.pools.map((pool) => [
        pool.name,
        {
          cluster: this.cluster.clusterName,
          taskDefinition: (this.taskDefinitions.get(pool.name) as FargateTaskDefinition).taskDefinitionArn,
          subnets: this.subnetsOf(pool).map((subnet) => subnet.subnetId),
          securityGroups: [this.securityGroup.securityGroupId],
          networks,
        },
      ]),
    );
  }

  private subnetsOf(pool: EcsPoolConfig): ISubnet[] {
    if (!pool.assignPublicIp) return this.props.privateSubnets;
    const subnets = this.props.publicSubnets ?? [];
    if (subnets.length === 0) {
      throw new Error(`pool "${pool.name}" has assignPublicIp but the network has no public subnets`);
    }
    return subnets;
  }

  /** ARN pattern of this cluster's tasks (the long ARN format, which names the cluster). */
  get taskArns(): string {
    return Stack.of(this).formatArn({
      service: 'ecs',
      resource: 'task',
      resourceName: `${this.cluster.clusterName}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }

  /**
   * What the router needs to start a browser: RunTask on these task definitions only and only in this
   * cluster, PassRole for their roles only and only to ECS tasks, the tags RunTask sets, and watching
   * and stopping the tasks it started.
   */
  grantLaunch(grantee: IGrantable): void {
    this.grantRunTask(grantee);
    if (this.hasWarmPools) {
      // A router that claims a warm task tags it as its session's (ecs-warm-claim.ts): these keys only.
      Grant.addToPrincipal({
        grantee,
        actions: ['ecs:TagResource'],
        resourceArns: [this.taskArns],
        conditions: {
          'ForAllValues:StringEquals': {
            'aws:TagKeys': [TASK_TAGS.warm, TASK_TAGS.session, TASK_TAGS.user, TASK_TAGS.createdAt],
          },
        },
      });
    }
    this.grantTaskControl(grantee);
  }

  /** Whether some pool keeps warm tasks, which the cleanup starts and routers claim. */
  private get hasWarmPools(): boolean {
    return this.pools.some((pool) => (pool.warm?.max ?? 0) > 0);
  }

  /** RunTask on these task definitions in this cluster, PassRole for their roles, and RunTask's tags. */
  private grantRunTask(grantee: IGrantable): void {
    const definitions = [...this.taskDefinitions.values()];
    if (definitions.length > 0) {
      Grant.addToPrincipal({
        grantee,
        actions: ['ecs:RunTask'],
        resourceArns: definitions.map((definition) => definition.taskDefinitionArn),
        conditions: { ArnEquals: { 'ecs:cluster': this.cluster.clusterArn } },
      });
      Grant.addToPrincipal({
        grantee,
        actions: ['iam:PassRole'],
        resourceArns: definitions.flatMap((definition) => [
          definition.taskRole.roleArn,
          definition.obtainExecutionRole().roleArn,
        ]),
        conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
      });
      // RunTask with `tags` also needs TagResource on the new task, and only as part of RunTask.
      Grant.addToPrincipal({
        grantee,
        actions: ['ecs:TagResource'],
        resourceArns: [this.taskArns],
        conditions: { StringEquals: { 'ecs:CreateAction': 'RunTask' } },
      });
    }
  }

  /**
   * GetLogEvents on the browsers' log group only (its ARN covers its streams): what the router needs to
   * serve a session its browser container's log (`GET /logs/{id}.log`). Nothing else of CloudWatch Logs.
   */
  grantBrowserLogRead(grantee: IGrantable): void {
    this.logGroup.grant(grantee, 'logs:GetLogEvents');
  }

  /** DescribeTasks and StopTask on this cluster's tasks. */
  grantTaskControl(grantee: IGrantable): void {
    Grant.addToPrincipal({
      grantee,
      actions: ['ecs:DescribeTasks', 'ecs:StopTask'],
      resourceArns: [this.taskArns],
    });
    acknowledgeOn(grantee, {
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ecs:<AWS::Region>:<AWS::AccountId>:task/<${this.clusterLogicalId}>/*]`,
      reason:
        "Task ARNs are made at RunTask; the wildcard covers this cluster's tasks only (the ARN names the cluster).",
    });
  }

  private get clusterLogicalId(): string {
    return Stack.of(this).getLogicalId(this.cluster.node.defaultChild as CfnResource);
  }

  /**
   * What the orphan cleanup needs: list this cluster's tasks, describe them, stop the strays; and, when
   * some pool keeps warm tasks, start them as the router starts a session's.
   */
  grantCleanup(grantee: IGrantable): void {
    // ListTasks is authorized on container instances, which Fargate has none of: the cluster condition scopes it.
    Grant.addToPrincipal({
      grantee,
      actions: ['ecs:ListTasks'],
      resourceArns: ['*'],
      conditions: { ArnEquals: { 'ecs:cluster': this.cluster.clusterArn } },
    });
    acknowledgeOn(grantee, {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ecs:ListTasks is authorized on container instances, which Fargate has none of; the ecs:cluster condition limits it to this cluster.',
    });
    if (this.hasWarmPools) this.grantRunTask(grantee);
    this.grantTaskControl(grantee);
  }
}

/** Acknowledges a cdk-nag finding on the grantee's own policy, when the grantee is a construct. */
function acknowledgeOn(grantee: IGrantable, acknowledgment: { id: string; reason: string }): void {
  if (Construct.isConstruct(grantee)) Validations.of(grantee).acknowledge(acknowledgment);
}
