/**
 * The network the grid runs in: a VPC over two or more AZs whose private subnets hold the router and the
 * browser tasks, reaching AWS APIs and ECR through VPC endpoints (no NAT by default); or an existing VPC.
 */
import { Validations } from 'aws-cdk-lib';
import {
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpointAwsService,
  type ISubnet,
  type IVpc,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface GridNetworkProps {
  /**
   * Use this VPC instead of creating one. Its private subnets (or, failing those, its isolated ones) hold
   * the router and the browsers; it must already reach ECS, ECR, CloudWatch Logs, Secrets Manager and
   * DynamoDB (endpoints or NAT), because nothing is added to a VPC the stack does not own.
   * @default a new VPC
   */
  vpc?: IVpc;
  /**
   * Look up an existing VPC by ID (`Vpc.fromLookup`). A lookup needs the stack's `env` (account and
   * region) and AWS credentials at synth time, and caches its answer in cdk.context.json; the default
   * (a new VPC) needs neither, so `cdk synth` works offline.
   * @default a new VPC
   */
  vpcId?: string;
  /** Availability zones of a new VPC; Fargate capacity (Spot especially) is found across AZs. @default 2 */
  maxAzs?: number;
  /**
   * NAT gateways of a new VPC. With none, nothing in the VPC reaches the internet: browsers can test sites
   * in the VPC (or peered networks) only, and hub pools must be reachable privately. One NAT gateway costs
   * about $0.045/h (≈ $33/month) plus $0.045/GB. Pools with `assignPublicIp` get public subnets instead.
   * @default 0
   */
  natGateways?: number;
  /**
   * Interface endpoints for ECS, ECR (api, dkr), CloudWatch Logs and Secrets Manager, and gateway endpoints
   * for S3 and DynamoDB (free). The interface ones cost about $0.01/h per AZ each (5 × 2 AZs ≈ $73/month)
   * and are what lets private subnets work without NAT. Turn off only with NAT gateways.
   * @default true
   */
  endpoints?: boolean;
  /** Public subnets too, for pools with `assignPublicIp` (always there with NAT gateways). @default false */
  publicSubnets?: boolean;
  /** Flow logs of rejected traffic (security-group mistakes show there) are kept this long. @default one month */
  flowLogRetention?: RetentionDays;
}

export class GridNetwork extends Construct {
  readonly vpc: IVpc;
  /** Where the router and the browsers without public IPs run. */
  readonly privateSubnets: ISubnet[];

  constructor(scope: Construct, id: string, props: GridNetworkProps = {}) {
    super(scope, id);
    if (props.vpc && props.vpcId) throw new Error('GridNetwork: give vpc or vpcId, not both');
    const existing =
      props.vpc ?? (props.vpcId ? Vpc.fromLookup(this, 'Vpc', { vpcId: props.vpcId }) : undefined);
    this.vpc = existing ?? this.createVpc(props);
    this.privateSubnets =
      this.vpc.privateSubnets.length > 0 ? this.vpc.privateSubnets : this.vpc.isolatedSubnets;
    if (!existing && (props.endpoints ?? true)) this.addEndpoints(this.vpc as Vpc);
  }

  /** The VPC's CIDR: the only addresses a session ID may name (functions/core/browser-network.ts). */
  get networks(): string[] {
    return [this.vpc.vpcCidrBlock];
  }

  private createVpc(props: GridNetworkProps): Vpc {
    const natGateways = props.natGateways ?? 0;
    // NAT gateways live in public subnets.
    const publicSubnets = (props.publicSubnets ?? false) || natGateways > 0;
    const vpc = new Vpc(this, 'Vpc', {
      maxAzs: props.maxAzs ?? 2,
      natGateways,
      subnetConfiguration: [
        ...(publicSubnets ? [{ name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 22 }] : []),
        {
          name: 'private',
          // /20 = 4,091 addresses per AZ: one per browser task and per router environment.
          subnetType: natGateways > 0 ? SubnetType.PRIVATE_WITH_EGRESS : SubnetType.PRIVATE_ISOLATED,
          cidrMask: 20,
        },
      ],
    });
    vpc.addFlowLog('RejectedTraffic', {
      trafficType: FlowLogTrafficType.REJECT,
      destination: FlowLogDestination.toCloudWatchLogs(
        new LogGroup(this, 'FlowLogs', { retention: props.flowLogRetention ?? RetentionDays.ONE_MONTH }),
      ),
    });
    return vpc;
  }

  private addEndpoints(vpc: Vpc): void {
    const subnets = { subnets: this.privateSubnets };
    // S3 carries ECR's image layers; DynamoDB the session table. Gateway endpoints are free.
    vpc.addGatewayEndpoint('S3', { service: GatewayVpcEndpointAwsService.S3, subnets: [subnets] });
    vpc.addGatewayEndpoint('DynamoDb', {
      service: GatewayVpcEndpointAwsService.DYNAMODB,
      subnets: [subnets],
    });
    const services = {
      Ecs: InterfaceVpcEndpointAwsService.ECS, // RunTask, DescribeTasks, StopTask from the router
      EcrApi: InterfaceVpcEndpointAwsService.ECR, // image manifests for Fargate
      EcrDocker: InterfaceVpcEndpointAwsService.ECR_DOCKER,
      Logs: InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS, // the browsers' awslogs driver
      SecretsManager: InterfaceVpcEndpointAwsService.SECRETS_MANAGER, // the signing key, once per environment
    };
    for (const [id, service] of Object.entries(services)) {
      // The default security group admits 443 from the VPC's CIDR only.
      const endpoint = vpc.addInterfaceEndpoint(id, { service, subnets, privateDnsEnabled: true });
      Validations.of(endpoint).acknowledge({
        id: 'AwsSolutions-EC23',
        reason:
          "The endpoint's security group admits HTTPS from the VPC's own CIDR only; the rule cannot read the CIDR (a CloudFormation reference) and assumes the worst.",
      });
    }
  }
}
