/**
 * The network the grid runs in: a new VPC over two or more AZs whose private subnets hold the router and
 * the browser tasks, laid out one of three ways (infra/network-layout.ts), or an existing VPC as it is.
 */
import { Annotations, Stack, Token, Validations } from 'aws-cdk-lib';
import {
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  type IMachineImage,
  InstanceType,
  InterfaceVpcEndpointAwsService,
  type ISubnet,
  type IVpc,
  LookupMachineImage,
  MachineImage,
  NatProvider,
  Peer,
  Port,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { FckNatInstanceProvider } from 'cdk-fck-nat';
import { Construct } from 'constructs';
import { hasInternet, type NetworkLayout } from './network-layout';

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
  /** How a new VPC reaches AWS APIs and the internet (infra/network-layout.ts). @default 'nat-instance' */
  layout?: Exclude<NetworkLayout, 'existing'>;
  /** Availability zones of a new VPC; Fargate capacity (Spot especially) is found across AZs. @default 2 */
  maxAzs?: number;
  /** NAT gateways or NAT instances (nat-gateway, nat-instance layouts): one per AZ at most. @default 1 */
  natGateways?: number;
  /**
   * Endpoints layout: the AZs the interface endpoints sit in. One halves their cost; tasks and the router in
   * the other AZ then reach AWS APIs across AZs, and lose them when that AZ is down. @default every AZ
   */
  endpointAzs?: number;
  /**
   * The NAT instance's image. @default fck-nat's own AMI (looked up: needs the stack's account and Region,
   * that is AWS credentials at synth time); without them, a placeholder, with a synth warning
   */
  natInstanceImage?: IMachineImage;
  /**
   * The NAT instance's EC2 type. GridgateStack sizes it from the ecs pools' `maxSessions`
   * (nat-instance-size.ts). @default t4g.nano (32 Mbit/s sustained)
   */
  natInstanceType?: string;
  /** Public subnets too, for pools with `assignPublicIp` (always there with NAT). @default false */
  publicSubnets?: boolean;
  /** Flow logs of rejected traffic (security-group mistakes show there) are kept this long. @default one month */
  flowLogRetention?: RetentionDays;
}

/** fck-nat on the smallest Graviton instance when nothing says more is needed: 32 Mbit/s sustained. */
const NAT_INSTANCE_TYPE = 't4g.nano';
/** Stands in for the AMI when no account and Region are known: such a template is for reading, not deploying. */
const PLACEHOLDER_AMI = 'ami-00000000000000000';

export class GridNetwork extends Construct {
  readonly vpc: IVpc;
  readonly layout: NetworkLayout;
  /** Where the router and the browsers without public IPs run. */
  readonly privateSubnets: ISubnet[];
  /** Whether browsers and the router can reach the internet (sites under test, public hubs). */
  readonly internet: boolean;

  constructor(scope: Construct, id: string, props: GridNetworkProps = {}) {
    super(scope, id);
    if (props.vpc && props.vpcId) throw new Error('GridNetwork: give vpc or vpcId, not both');
    const existing =
      props.vpc ?? (props.vpcId ? Vpc.fromLookup(this, 'Vpc', { vpcId: props.vpcId }) : undefined);
    this.layout = existing ? 'existing' : (props.layout ?? 'nat-instance');
    this.vpc = existing ?? this.createVpc(props);
    this.privateSubnets =
      this.vpc.privateSubnets.length > 0 ? this.vpc.privateSubnets : this.vpc.isolatedSubnets;
    // An existing VPC's way out cannot be seen: assume it has one (its owner chose it for the grid).
    this.internet = existing ? true : hasInternet(this.layout);
    if (!existing) this.addGatewayEndpoints(this.vpc as Vpc);
    if (this.layout === 'endpoints') this.addInterfaceEndpoints(this.vpc as Vpc, props.endpointAzs);
  }

  /** The VPC's CIDR: the only addresses a session ID may name (functions/core/browser-network.ts). */
  get networks(): string[] {
    return [this.vpc.vpcCidrBlock];
  }

  private createVpc(props: GridNetworkProps): Vpc {
    const layout = props.layout ?? 'nat-instance';
    const natGateways = layout === 'endpoints' ? 0 : (props.natGateways ?? 1);
    // NAT lives in public subnets.
    const publicSubnets = (props.publicSubnets ?? false) || natGateways > 0;
    const natInstance = layout === 'nat-instance' ? this.natInstance(props) : undefined;
    const vpc = new Vpc(this, 'Vpc', {
      maxAzs: props.maxAzs ?? 2,
      natGateways,
      natGatewayProvider: natInstance ?? (natGateways > 0 ? NatProvider.gateway() : undefined),
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
    if (natInstance) this.admitToNatInstance(vpc, natInstance);
    vpc.addFlowLog('RejectedTraffic', {
      trafficType: FlowLogTrafficType.REJECT,
      destination: FlowLogDestination.toCloudWatchLogs(
        new LogGroup(this, 'FlowLogs', { retention: props.flowLogRetention ?? RetentionDays.ONE_MONTH }),
      ),
    });
    return vpc;
  }

  /** fck-nat in an Auto Scaling group of one per AZ: a NAT instance that is replaced when it fails. */
  private natInstance(props: GridNetworkProps): FckNatInstanceProvider {
    return new FckNatInstanceProvider({
      instanceType: new InstanceType(props.natInstanceType ?? NAT_INSTANCE_TYPE),
      machineImage: props.natInstanceImage ?? this.natInstanceImage(),
      // No Session Manager: nothing on the instance needs a person, and it keeps the role to nothing.
      enableSsm: false,
    });
  }

  private natInstanceImage(): IMachineImage {
    const stack = Stack.of(this);
    if (!Token.isUnresolved(stack.account) && !Token.isUnresolved(stack.region)) {
      return new LookupMachineImage({
        name: FckNatInstanceProvider.AMI_NAME,
        owners: [FckNatInstanceProvider.AMI_OWNER],
      });
    }
    Annotations.of(this).addWarningV2(
      'gridgate:natInstanceImagePlaceholder',
      `network nat-instance: no account and Region known, so fck-nat's AMI cannot be looked up and this template holds a placeholder (${PLACEHOLDER_AMI}); cdk deploy, with credentials, looks it up`,
    );
    return MachineImage.genericLinux({ 'us-east-1': PLACEHOLDER_AMI });
  }

  private admitToNatInstance(vpc: Vpc, provider: FckNatInstanceProvider): void {
    // fck-nat forwards what the VPC sends it; nothing from outside the VPC may reach it.
    provider.securityGroup.addIngressRule(Peer.ipv4(vpc.vpcCidrBlock), Port.allTraffic(), 'NAT for the VPC');
    const acknowledge = (scope: Construct, id: string, reason: string) =>
      Validations.of(scope).acknowledge({ id, reason });
    acknowledge(
      provider.securityGroup as unknown as Construct,
      'AwsSolutions-EC23',
      "The NAT instance admits traffic from the VPC's own CIDR only; the rule cannot read the CIDR (a CloudFormation reference) and assumes the worst.",
    );
    for (const group of provider.autoScalingGroups) {
      acknowledge(
        group,
        'AwsSolutions-AS3',
        'The NAT instance group holds one instance and replaces it when it fails; nobody acts on its scaling notifications (rejected-traffic flow logs and failing page loads show an outage).',
      );
      acknowledge(
        group,
        'AwsSolutions-EC26',
        "The NAT instance's root volume holds fck-nat's AMI and nothing else: no data at rest passes through it (forwarded packets never touch the disk). Turn on EBS encryption by default for the account where policy asks for it.",
      );
    }
    acknowledge(
      provider.role,
      'AwsSolutions-IAM5[Resource::*]',
      "cdk-fck-nat's own policy: at boot the instance attaches the stable network interface the private subnets route to (ec2:AttachNetworkInterface, ModifyNetworkInterfaceAttribute); the instance is a launch-template instance whose ARN is not known in advance.",
    );
  }

  /** S3 carries ECR's image layers (so pulls bypass NAT); DynamoDB the session table. Gateway endpoints are free. */
  private addGatewayEndpoints(vpc: Vpc): void {
    const subnets = [{ subnets: this.privateSubnets }];
    vpc.addGatewayEndpoint('S3', { service: GatewayVpcEndpointAwsService.S3, subnets });
    vpc.addGatewayEndpoint('DynamoDb', { service: GatewayVpcEndpointAwsService.DYNAMODB, subnets });
  }

  /** Without NAT, the AWS APIs the router and the tasks call. About $0.01 an hour per AZ each. */
  private addInterfaceEndpoints(vpc: Vpc, azs: number | undefined): void {
    const subnets = { subnets: azs ? this.privateSubnets.slice(0, azs) : this.privateSubnets };
    const services = {
      Ecs: InterfaceVpcEndpointAwsService.ECS, // RunTask, DescribeTasks, StopTask from the router
      EcrApi: InterfaceVpcEndpointAwsService.ECR, // image manifests for Fargate
      EcrDocker: InterfaceVpcEndpointAwsService.ECR_DOCKER,
      Logs: InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS, // the browsers' awslogs driver; GetLogEvents from the router
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
