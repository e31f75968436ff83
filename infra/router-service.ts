/**
 * The `service` front door: router heads (the Node server's production build, infra/head-image.ts) as an
 * ECS Fargate service in the grid's VPC behind an internet-facing Application Load Balancer. Heads carry
 * WebSockets (BiDi, CDP, the status page's VNC view), share the DynamoDB table and signing key with the
 * cleanup and each other, and start browsers in the same ecs and eks pools as the Lambda router would.
 */
import { Aspects, CfnOutput, Duration, type IAspect, Stack, Validations } from 'aws-cdk-lib';
import { type ISecurityGroup, type ISubnet, type IVpc, SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import {
  CfnClusterCapacityProviderAssociations,
  CpuArchitecture,
  FargateService,
  FargateTaskDefinition,
  type ICluster,
  LogDrivers,
  OperatingSystemFamily,
} from 'aws-cdk-lib/aws-ecs';
import {
  ApplicationLoadBalancer,
  ApplicationProtocol,
  ListenerAction,
  ListenerCertificate,
  SslPolicy,
} from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import type { Config } from '../functions/core/config';
import type { HeadsConfig } from '../functions/core/heads-config';
import { headImage } from './head-image';
import { acknowledgeImagePull } from './image-pull-permissions';

export interface RouterServiceProps {
  vpc: IVpc;
  /** The heads' subnets (private, with a way to ECS, DynamoDB and Secrets Manager). */
  subnets: ISubnet[];
  /** The load balancer's subnets. */
  publicSubnets: ISubnet[];
  /** The browsers' cluster: the heads run beside them, on its FARGATE and FARGATE_SPOT providers. */
  cluster: ICluster;
  /** The heads' group: the browsers admit it, and it admits the load balancer only. */
  securityGroup: ISecurityGroup;
  config: Config;
  configFile?: string;
  usersFile?: string;
  /** GRIDGATE_DEPLOYMENT's facts (table, pools); the service adds the public URL. */
  deployment: Record<string, unknown>;
  /** Besides GRIDGATE_DEPLOYMENT: GRIDGATE_SECRET_ARN. */
  environment: Record<string, string>;
  logRetention?: RetentionDays;
}

/** ALB idle timeouts: 1 to 4000 seconds (ELB guide, "Edit attributes for your Application Load Balancer"). */
export const ALB_MAX_IDLE = Duration.seconds(4000);
/**
 * How long a stopping head keeps serving what it has: the longest a command waits on its browser (undici's
 * 330 s headers and body timeouts in functions/webdriver-client/upstream-client.ts). The ALB sends it nothing new
 * meanwhile; sessions go on through the other heads, since any head serves any session.
 */
export const HEAD_DRAINING = Duration.seconds(330);

/**
 * The longest a connection may sit silent: a new session says nothing until its browser is up (a queue
 * wait and a cold start), and a WebSocket session may be quiet up to the grid's idle timeout.
 */
export function headsIdleTimeout(config: Config): Duration {
  const margin = 60_000;
  const needed = Math.max(
    config.timeouts.queue + config.timeouts.newSession + margin,
    config.timeouts.idle + margin,
  );
  return Duration.seconds(Math.min(ALB_MAX_IDLE.toSeconds(), Math.max(60, Math.ceil(needed / 1000))));
}

export class RouterService extends Construct {
  readonly service: FargateService;
  readonly taskDefinition: FargateTaskDefinition;
  readonly loadBalancer: ApplicationLoadBalancer;
  /** What clients use, ending in '/': https://domainName/ with a certificate, else the ALB's http:// name. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: RouterServiceProps) {
    super(scope, id);
    const heads = props.config.heads as HeadsConfig;
    const port = props.config.port;
    const https = heads.certificateArn !== undefined && heads.domainName !== undefined;

    const balancerGroup = new SecurityGroup(this, 'LoadBalancerSecurityGroup', {
      vpc: props.vpc,
      description: 'gridgate load balancer: WebDriver clients from anywhere, out to the heads only',
      allowAllOutbound: false,
    });
    this.loadBalancer = new ApplicationLoadBalancer(this, 'LoadBalancer', {
      vpc: props.vpc,
      vpcSubnets: { subnets: props.publicSubnets },
      internetFacing: true,
      securityGroup: balancerGroup,
      idleTimeout: headsIdleTimeout(props.config),
      dropInvalidHeaderFields: true,
    });
    const publicUrl = https
      ? `https://${heads.domainName}`
      : `http://${this.loadBalancer.loadBalancerDnsName}`;
    this.url = `${publicUrl}/`;

    this.taskDefinition = new FargateTaskDefinition(this, 'Task', {
      cpu: heads.cpu,
      memoryLimitMiB: heads.memory,
      // Fargate Spot runs x86_64 only.
      runtimePlatform: {
        cpuArchitecture: CpuArchitecture.X86_64,
        operatingSystemFamily: OperatingSystemFamily.LINUX,
      },
    });
    this.taskDefinition.addContainer('head', {
      image: headImage(props.configFile, props.usersFile),
      portMappings: [{ containerPort: port }],
      environment: {
        ...props.environment,
        // Every interface of the container: the load balancer cannot reach its loopback, gridgate's default.
        GRIDGATE_DEPLOYMENT: Stack.of(this).toJsonString({ ...props.deployment, publicUrl, host: '0.0.0.0' }),
      },
      logging: LogDrivers.awsLogs({
        streamPrefix: 'head',
        logGroup: new LogGroup(this, 'Logs', { retention: props.logRetention ?? RetentionDays.ONE_MONTH }),
      }),
      // SIGTERM, then this long to end the head's own work before SIGKILL (Fargate allows at most 120 s).
      stopTimeout: Duration.seconds(120),
    });

    this.service = new FargateService(this, 'Service', {
      cluster: props.cluster,
      taskDefinition: this.taskDefinition,
      desiredCount: heads.min,
      vpcSubnets: { subnets: props.subnets },
      securityGroups: [props.securityGroup],
      // The first heads on on-demand Fargate, every one beyond them on Spot.
      capacityProviderStrategies: [
        { capacityProvider: 'FARGATE', base: heads.onDemand, weight: 0 },
        { capacityProvider: 'FARGATE_SPOT', weight: 1 },
      ],
      circuitBreaker: { rollback: true },
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      healthCheckGracePeriod: Duration.seconds(60),
    });
    Aspects.of(this.service).add(new AfterCapacityProviders(this.service, props.cluster));

    const listener = https
      ? this.loadBalancer.addListener('Https', {
          port: 443,
          protocol: ApplicationProtocol.HTTPS,
          certificates: [ListenerCertificate.fromArn(heads.certificateArn as string)],
          sslPolicy: SslPolicy.RECOMMENDED_TLS,
          open: true,
        })
      : this.loadBalancer.addListener('Http', { port: 80, protocol: ApplicationProtocol.HTTP, open: true });
    if (https) {
      this.loadBalancer.addListener('HttpRedirect', {
        port: 80,
        open: true,
        defaultAction: ListenerAction.redirect({ protocol: 'HTTPS', port: '443', permanent: true }),
      });
    }
    // Adds the heads' ingress from the load balancer's group on the head's port, and nothing else.
    listener.addTargets('Heads', {
      port,
      protocol: ApplicationProtocol.HTTP,
      targets: [this.service],
      healthCheck: { path: '/status', healthyHttpCodes: '200', interval: Duration.seconds(15) },
      deregistrationDelay: HEAD_DRAINING,
    });

    const scaling = this.service.autoScaleTaskCount({ minCapacity: heads.min, maxCapacity: heads.max });
    scaling.scaleOnCpuUtilization('Cpu', {
      targetUtilizationPercent: heads.cpuTarget,
      scaleOutCooldown: Duration.seconds(60),
      // Slow in: a head taken away drains for HEAD_DRAINING first.
      scaleInCooldown: Duration.minutes(5),
    });

    new CfnOutput(this, 'LoadBalancerDnsName', {
      description: https
        ? `Point ${heads.domainName} (and *.${heads.domainName} for colours) here with a CNAME or an alias record`
        : 'The load balancer: WebDriver clients use http:// on this name',
      value: this.loadBalancer.loadBalancerDnsName,
    });
    this.acknowledgeFindings(balancerGroup);
  }

  private acknowledgeFindings(balancerGroup: SecurityGroup): void {
    Validations.of(this.loadBalancer).acknowledge({
      id: 'AwsSolutions-ELB2',
      reason:
        'No ALB access logs by default: they need an S3 bucket with an ELB-account policy; every head logs each request outcome itself (JSON lines in CloudWatch Logs).',
    });
    Validations.of(balancerGroup).acknowledge({
      id: 'AwsSolutions-EC23',
      reason:
        'The grid is reached by WebDriver clients from wherever tests run (CI runners, laptops); gridgate authenticates every request itself (HTTP Basic auth).',
    });
    Validations.of(this.taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason:
        "The environment holds no secret: the deployment's resource names and the signing key's ARN, which the head reads from Secrets Manager with its task role.",
    });
    acknowledgeImagePull(this.taskDefinition);
  }
}

/** What a config lacks for the service front door, each naming its key (empty: nothing). */
export function serviceFrontDoorProblems(config: Config): string[] {
  const problems: string[] = [];
  if (!config.heads) {
    problems.push(
      'heads: the service front door needs the heads section, at least {"min": 1, "max": 2} (heads always running, and most)',
    );
  }
  for (const pool of Object.values(config.pools)) {
    if (pool.kind === 'local') {
      problems.push(
        `pools.${pool.name}: local pools cannot run in a head on Fargate (no Chromium in its image)`,
      );
    }
  }
  return problems;
}

/**
 * Makes the service wait for its cluster's capacity-provider association: a service whose strategy names
 * FARGATE and FARGATE_SPOT fails to create while they are not yet associated, and nothing else orders the
 * two. The association is made by an aspect of aws-ecs's Cluster at synthesis (a mutating one, which runs
 * before this default-priority one), so it is looked up here rather than when the service is made.
 */
class AfterCapacityProviders implements IAspect {
  constructor(
    private readonly service: FargateService,
    private readonly cluster: ICluster,
  ) {}

  visit(node: IConstruct): void {
    if (node !== this.service) return;
    const association = this.cluster.node.children.find(
      (child) => child instanceof CfnClusterCapacityProviderAssociations,
    );
    if (association) this.service.node.addDependency(association);
  }
}
