/**
 * The gridgate stack: network, browsers, data, front door, cleanup, dashboard — each its own construct,
 * all built from the one gridgate config file the router itself reads, so deployment and routing agree.
 */
import { Annotations, CfnOutput, Duration, type RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { ISecurityGroup } from 'aws-cdk-lib/aws-ec2';
import type { IGrantable, IRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import {
  COLD_NEW_SESSION_MS,
  type Config,
  ConfigError,
  type EcsPoolConfig,
  type EksPoolConfig,
  startsCold,
} from '../functions/core/config';
import { BrowserFleet, type BrowserFleetProps } from './browser-fleet';
import { browserLogRetention, warnOfShortLogRetention } from './browser-log-retention';
import { chromiumImageProblems } from './chromium-image';
import { EksClusterAccess } from './eks-access';
import { EksRecorderIdentity } from './eks-recorder-identity';
import { FRONT_DOOR_IDLE_LIMIT, FrontDoor, type FrontDoorProps } from './front-door';
import { GridAlarms, type GridAlarmsProps } from './grid-alarms';
import { GridDashboard, type GridDashboardProps } from './grid-dashboard';
import { GridNetwork, type GridNetworkProps } from './grid-network';
import { browsingSessions, natInstanceSize, SESSION_MBITS } from './nat-instance-size';
import { OrphanCleanup, type OrphanCleanupProps } from './orphan-cleanup';
import { RecordingsBucket } from './recordings-bucket';
import { serviceFrontDoorProblems } from './router-service';
import { SessionTable } from './session-table';
import { SigningKey } from './signing-key';
import { SpotInterruptions } from './spot-interruptions';
import { stageThrottle } from './stage-throttle';

export interface GridgateStackProps extends StackProps {
  /** The validated gridgate config: its `ecs` pools become task definitions, its timeouts size the functions. */
  config: Config;
  /** The file `config` was read from, bundled into every function. @default the built-in defaults (`{}`) */
  configFile?: string;
  /** For the stateful resources. @default RemovalPolicy.RETAIN */
  removalPolicy?: RemovalPolicy;
  network?: GridNetworkProps;
  browsers?: Pick<BrowserFleetProps, 'mirrorImages' | 'logRetention' | 'containerInsights' | 'soci'>;
  frontDoor?: Pick<
    FrontDoorProps,
    | 'kind'
    | 'timeout'
    | 'memorySize'
    | 'throttle'
    | 'functionUrlAuth'
    | 'maxConcurrencyPerEnvironment'
    | 'customDomain'
  >;
  cleanup?: Pick<OrphanCleanupProps, 'schedule' | 'dryRun'>;
  alarms?: Omit<GridAlarmsProps, 'routerFunction' | 'cleanup'>;
  dashboard?: Pick<GridDashboardProps, 'prices' | 'dashboardName'>;
}

/** The paths the router answers WebDriver on besides the root (Selenium 3-era clients expect it). */
export const WEBDRIVER_PATH = 'wd/hub';

export class GridgateStack extends Stack {
  readonly config: Config;
  readonly network: GridNetwork;
  readonly browsers: BrowserFleet;
  /** Where ecs and eks sessions' videos go, and eks sessions' logs; only when some pool has a recorder or is eks. */
  readonly recordings?: RecordingsBucket;
  readonly sessions: SessionTable;
  readonly signingKey: SigningKey;
  readonly frontDoor: FrontDoor;
  readonly cleanup: OrphanCleanup;
  readonly interruptions: SpotInterruptions;
  readonly alarms: GridAlarms;
  readonly dashboard: GridDashboard;
  /** Access entries and security-group rules on the existing clusters of the config's eks pools. */
  readonly eksAccess?: EksClusterAccess;
  /** The role and Pod Identity associations eks pools' recorders upload with; only when one has a recorder. */
  readonly eksRecorders?: EksRecorderIdentity;

  constructor(scope: Construct, id: string, props: GridgateStackProps) {
    super(scope, id, props);
    this.config = props.config;
    const { removalPolicy, configFile } = props;
    const pools = ecsPools(props.config);
    const eks = eksPools(props.config);
    const kind = props.frontDoor?.kind ?? 'rest-api';
    const routerTimeout = props.frontDoor?.timeout ?? Duration.minutes(15);
    checkRouterTimeout(props.config, routerTimeout);
    warnOfShortNewSessionBudget(this, props.config);
    const chromiumProblems = chromiumImageProblems(props.config);
    if (chromiumProblems.length > 0)
      throw new ConfigError(configFile ?? 'built-in defaults', chromiumProblems);

    this.network = new GridNetwork(this, 'Network', {
      ...props.network,
      natInstanceType: props.network?.natInstanceType ?? sizedNatInstance(this, props.config, props.network),
      // The service front door's load balancer sits in public subnets.
      publicSubnets:
        props.network?.publicSubnets ?? (kind === 'service' || pools.some((pool) => pool.assignPublicIp)),
    });
    const { vpc, privateSubnets } = this.network;
    this.sessions = new SessionTable(this, 'Sessions', { removalPolicy });
    this.signingKey = new SigningKey(this, 'SigningKey', { removalPolicy });
    // Pools with a video recorder need the bucket, and eks pools keep their pods' logs there.
    this.recordings =
      eks.length > 0 || pools.some((pool) => pool.recorder)
        ? new RecordingsBucket(this, 'Recordings', {
            retention: Duration.millis(props.config.recording.retention),
            removalPolicy,
            podLogs: eks.length > 0,
          })
        : undefined;
    const logRetention = props.browsers?.logRetention ?? browserLogRetention(props.config);
    if (pools.length > 0) warnOfShortLogRetention(this, props.config, logRetention);
    this.browsers = new BrowserFleet(this, 'Browsers', {
      ...props.browsers,
      logRetention,
      recordings: this.recordings,
      vpc,
      privateSubnets,
      publicSubnets: vpc.publicSubnets,
      pools,
      sessionTimeout: browserSessionTimeout(this, props.config, FRONT_DOOR_IDLE_LIMIT[kind]),
      timeouts: props.config.timeouts,
    });

    // What only the deployment knows, resolved by CloudFormation (functions/core/deployment.ts).
    const customDomain = props.frontDoor?.customDomain?.domainName ?? props.config.heads?.domainName;
    const deployment = {
      table: this.sessions.table.tableName,
      pools: this.browsers.deploymentFacts(this.network.networks),
      // eks pools' recorders are told the bucket and its Region in each pod (functions/core/deployment.ts).
      ...(this.recordings
        ? { recordingsBucket: this.recordings.bucket.bucketName, region: this.region }
        : {}),
      // Where ecs sessions' browser logs are read (functions/pools/ecs/cloudwatch-browser-logs.ts).
      ...(pools.length > 0 ? { browserLogGroup: this.browsers.logGroup.logGroupName } : {}),
      // `blue.<domain>` then asks for colour blue (the wildcard certificate covers it).
      ...(customDomain ? { baseDomains: [customDomain] } : {}),
    };
    const environment = { GRIDGATE_DEPLOYMENT: this.toJsonString(deployment) };
    if (kind === 'service') {
      const problems = serviceFrontDoorProblems(props.config);
      if (problems.length > 0) {
        throw new ConfigError(`${configFile ?? 'built-in defaults'} (with -c frontDoor=service)`, problems);
      }
    }
    this.frontDoor = new FrontDoor(this, 'FrontDoor', {
      ...props.frontDoor,
      kind,
      throttle: props.frontDoor?.throttle ?? stageThrottle(props.config),
      timeout: routerTimeout,
      vpc,
      subnets: privateSubnets,
      configFile,
      usersFile: props.config.usersFile,
      environment: { ...environment, GRIDGATE_SECRET_ARN: this.signingKey.secret.secretArn },
      service:
        kind === 'service'
          ? {
              config: props.config,
              cluster: this.browsers.cluster,
              publicSubnets: vpc.publicSubnets,
              deployment,
            }
          : undefined,
    });
    this.cleanup = new OrphanCleanup(this, 'Cleanup', {
      ...props.cleanup,
      vpc,
      subnets: privateSubnets,
      configFile,
      environment,
    });
    this.interruptions = new SpotInterruptions(this, 'SpotInterruptions', {
      cluster: this.browsers.cluster,
      vpc,
      subnets: privateSubnets,
      configFile,
      environment,
    });

    shareNetworkInterfaces(this.frontDoor.routerFunction, this.cleanup.function, [
      this.frontDoor.securityGroup,
      this.cleanup.securityGroup,
    ]);
    const router = this.frontDoor.grantee;
    this.browsers.allowWebDriverFrom(this.frontDoor.securityGroup);
    // Heads carry WebSockets: the status page's live view reaches each browser's noVNC through them.
    if (kind === 'service') this.browsers.allowVncFrom(this.frontDoor.securityGroup);
    this.browsers.allowWebDriverFrom(this.cleanup.securityGroup);
    this.browsers.grantLaunch(router);
    this.browsers.grantCleanup(this.cleanup.function);
    this.browsers.grantTaskControl(this.interruptions.function);
    this.signingKey.secret.grantRead(router);
    // eks pools keep their pods' browser logs in the bucket: the router reads them back.
    const keptLogs = eks.length > 0;
    this.recordings?.grantRead(router, { logs: keptLogs });
    // Videos a session was not to keep land after its end, so the cleanup deletes them, not the router.
    if (pools.some((pool) => pool.recorder) || eks.some((pool) => pool.recorder)) {
      this.recordings?.grantVideoDeletion(this.cleanup.function);
    }
    if (keptLogs) {
      // Whoever deletes a session's pod copies its log first: the router (or head) at DELETE, the cleanup at
      // an idle timeout or maximum age (functions/pools/eks/pod-log-archive.ts).
      for (const stopper of [router, this.cleanup.function]) this.recordings?.grantLogUpload(stopper);
    }
    if (pools.length > 0) this.browsers.grantBrowserLogRead(router);
    for (const grantee of [router, this.cleanup.function, this.interruptions.function]) {
      this.sessions.table.grantReadWriteData(grantee);
    }
    if (!this.network.internet) warnOfUnreachableHubs(this, props.config);
    if (eks.length > 0) {
      this.eksAccess = new EksClusterAccess(this, 'EksAccess', {
        pools: eks,
        configFile,
        clients: [
          {
            id: 'Router',
            role: roleOf(router),
            connections: this.frontDoor.securityGroup,
            webDriver: true,
            vnc: kind === 'service',
          },
          {
            id: 'Cleanup',
            role: roleOf(this.cleanup.function),
            connections: this.cleanup.securityGroup,
            webDriver: false,
            vnc: false,
          },
        ],
      });
      const recorded = eks.filter((pool) => pool.recorder);
      if (this.recordings && recorded.length > 0) {
        this.eksRecorders = new EksRecorderIdentity(this, 'EksRecorders', {
          pools: recorded,
          recordings: this.recordings,
        });
      }
      // Pod IPs are VPC addresses of the cluster's VPC (VPC CNI): a VPC of the stack's own is never it.
      if (!props.network?.vpc && !props.network?.vpcId) {
        Annotations.of(this).addWarningV2(
          'gridgate:eksOutsideClusterVpc',
          `eks pools (${eks.map((pool) => pool.name).join(', ')}): the router runs in a new VPC, where the pods' IPs are unreachable; deploy with -c vpcId=<the cluster's VPC>`,
        );
      }
    }

    this.alarms = new GridAlarms(this, 'Alarms', {
      ...props.alarms,
      routerFunction: this.frontDoor.routerFunction,
      cleanup: { function: this.cleanup.function, interval: this.cleanup.interval },
    });
    this.dashboard = new GridDashboard(this, 'Dashboard', {
      ...props.dashboard,
      clusterName: this.browsers.cluster.clusterName,
      pools,
      routerFunction: this.frontDoor.routerFunction,
      routerMemoryMb: props.frontDoor?.memorySize,
      api: this.frontDoor.api,
      sessionLogGroups: [
        this.cleanup.function.logGroup,
        ...(this.frontDoor.routerFunction ? [this.frontDoor.routerFunction.logGroup] : []),
        ...(this.frontDoor.webFunction ? [this.frontDoor.webFunction.logGroup] : []),
      ],
      alarms: this.alarms.all,
    });

    new CfnOutput(this, 'WebDriverUrl', {
      description: 'Point WebDriver clients here (with basic auth when the config has users)',
      value: `${this.frontDoor.url}${WEBDRIVER_PATH}`,
    });
    new CfnOutput(this, 'SessionTableName', { value: this.sessions.table.tableName });
    new CfnOutput(this, 'SessionTableArn', { value: this.sessions.table.tableArn });
    new CfnOutput(this, 'SigningKeySecretName', { value: this.signingKey.secret.secretName });
    new CfnOutput(this, 'SigningKeySecretArn', { value: this.signingKey.secret.secretArn });
    new CfnOutput(this, 'ClusterName', { value: this.browsers.cluster.clusterName });
  }
}

/**
 * Gives the router Lambda and the cleanup the same security groups (they share their subnets already), so
 * they share their Hyperplane network interfaces: Lambda makes one per subnet and security-group combination,
 * and reclaims one that has gone unused for weeks, after which the next invocation fails while the function
 * goes Pending again ("Lambda function states"; "Giving Lambda functions access to resources in an Amazon
 * VPC"). The cleanup runs every few minutes, so a grid idle for a month still answers its first request.
 * Each function gains only the other's network reach (browsers' WebDriver port, an eks cluster's API).
 * Heads and a Web Function's network connector are not Lambda invocations in the VPC: nothing to share.
 */
function shareNetworkInterfaces(
  router: LambdaFunction | undefined,
  cleanup: LambdaFunction,
  groups: ISecurityGroup[],
): void {
  if (!router) return;
  for (const fn of [router, cleanup]) {
    const present = new Set(fn.connections.securityGroups);
    for (const group of groups) if (!present.has(group)) fn.connections.addSecurityGroup(group);
    // The function renders its VpcConfig when made; both get the one list, in one order.
    (fn.node.defaultChild as CfnFunction).addPropertyOverride(
      'VpcConfig.SecurityGroupIds',
      groups.map((group) => group.securityGroupId),
    );
  }
}

/**
 * The NAT instance's type for the config's browsers (nat-instance-size.ts), said at synth when it is not the
 * smallest, and warned of when even the largest t4g cannot carry every pool full.
 */
function sizedNatInstance(scope: Construct, config: Config, network: GridNetworkProps | undefined): string {
  const sessions = browsingSessions(config);
  const size = natInstanceSize(sessions, network?.natGateways ?? 1);
  if (!size.enough) {
    Annotations.of(scope).addWarningV2(
      'gridgate:natInstanceTooSmall',
      `network nat-instance: ${sessions} browsers at ${SESSION_MBITS} Mbit/s need more than a ${size.type} sustains (${size.baselineMbits} Mbit/s); use -c network=nat-gateway or -c natGateways=N`,
    );
  } else if (sessions > 0 && (network?.layout ?? 'nat-instance') === 'nat-instance') {
    Annotations.of(scope).addInfo(
      `network nat-instance: ${size.type} (${size.baselineMbits} Mbit/s sustained) for ${sessions} browsers at ${SESSION_MBITS} Mbit/s`,
    );
  }
  return size.type;
}

function eksPools(config: Config): EksPoolConfig[] {
  return Object.values(config.pools).filter((pool): pool is EksPoolConfig => pool.kind === 'eks');
}

/** The IAM role a function runs as: what an EKS access entry maps. */
function roleOf(grantee: IGrantable): IRole {
  const principal = grantee.grantPrincipal as Partial<IRole>;
  if (typeof principal.roleArn !== 'string') throw new Error('an eks pool needs functions with IAM roles');
  return principal as IRole;
}

function ecsPools(config: Config): EcsPoolConfig[] {
  return Object.values(config.pools).filter((pool): pool is EcsPoolConfig => pool.kind === 'ecs');
}

/**
 * Below this a first session on a cold ecs or eks pool may well fail: one image's pull alone is 30-60 s and
 * more on Fargate, a recorder's pool pulls two (docs/aws.md, "First day").
 */
export const COLD_START_BUDGET_MS = 120_000;

/** Says at synth that `timeouts.newSession` is shorter than a cold start, naming the pools that start cold. */
function warnOfShortNewSessionBudget(scope: Construct, config: Config): void {
  const cold = Object.values(config.pools).filter(startsCold);
  const budget = config.timeouts.newSession;
  if (cold.length === 0 || budget >= COLD_START_BUDGET_MS) return;
  Annotations.of(scope).addWarningV2(
    'gridgate:newSessionBelowColdStart',
    `timeouts.newSession (${budget / 1000} s) is shorter than a cold start of pools ${cold.map((pool) => pool.name).join(', ')} may take (an image pull of 30-60 s and more, two with a recorder): first sessions may fail "session not created"; give it ${COLD_START_BUDGET_MS / 1000} s or more (the default for ecs and eks pools is ${COLD_NEW_SESSION_MS / 1000} s), or keep a warm pool`,
  );
}

/** A new session may wait for a slot, then for a cold start; the router must outlive both. */
function checkRouterTimeout(config: Config, timeout: Duration): void {
  const needed = config.timeouts.queue + config.timeouts.newSession;
  // Room to answer and to stop a half-started browser after the new-session deadline.
  const margin = 10_000;
  if (needed + margin > timeout.toMilliseconds()) {
    throw new Error(
      `the router's timeout (${timeout.toHumanString()}) must exceed timeouts.queue + timeouts.newSession (${needed / 1000} s) by 10 s`,
    );
  }
}

/**
 * The browser's own idle timeout, a backstop behind gridgate's `timeouts.idle`: no longer than the
 * front door lets a stream sit silent, since a longer-idle session could not be reached anyway.
 */
function browserSessionTimeout(scope: Construct, config: Config, frontDoorIdle: Duration): Duration {
  const idle = Duration.millis(config.timeouts.idle);
  if (idle.toMilliseconds() <= frontDoorIdle.toMilliseconds())
    return Duration.seconds(Math.ceil(idle.toSeconds({ integral: false })));
  Annotations.of(scope).addWarningV2(
    'gridgate:idleAboveFrontDoor',
    `timeouts.idle (${idle.toHumanString()}) exceeds the front door's idle limit (${frontDoorIdle.toHumanString()}); browsers time out at the latter`,
  );
  return frontDoorIdle;
}

const PRIVATE_HOST = /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/;

function warnOfUnreachableHubs(scope: Construct, config: Config): void {
  for (const pool of Object.values(config.pools)) {
    // A private address is reached over peering or VPN, which the stack cannot see: no warning.
    if (pool.kind !== 'hub' || PRIVATE_HOST.test(new URL(pool.url).hostname)) continue;
    Annotations.of(scope).addWarningV2(
      `gridgate:hubWithoutNat:${pool.name}`,
      `hub pool "${pool.name}" (${pool.url}): the endpoints layout has no NAT, so the router reaches it only inside the VPC or a peered network (-c network=nat-instance)`,
    );
  }
}
