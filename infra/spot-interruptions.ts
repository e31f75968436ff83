/**
 * Spot reclaim notices: an EventBridge rule sends the grid cluster's "ECS Task State Change" events
 * with stopCode SpotInterruption or TerminationNotice to the interruption Lambda (the ecs kind's own,
 * functions/pools/ecs/spot-interruption-lambda.ts), which marks the session so its next command says
 * "browser was reclaimed" instead of timing out.
 */
import { Duration } from 'aws-cdk-lib';
import { type ISubnet, type IVpc, SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import type { ICluster } from 'aws-cdk-lib/aws-ecs';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { gridFunction } from './grid-function';

export interface SpotInterruptionsProps {
  cluster: ICluster;
  vpc: IVpc;
  subnets: ISubnet[];
  configFile?: string;
  environment: Record<string, string>;
  logRetention?: RetentionDays;
}

/** The ECS stop codes of a Fargate Spot reclaim (SDK TaskStopCode); both give two minutes' notice. */
export const SPOT_STOP_CODES = ['SpotInterruption', 'TerminationNotice'];

export class SpotInterruptions extends Construct {
  readonly function: NodejsFunction;
  readonly rule: Rule;
  readonly securityGroup: SecurityGroup;

  constructor(scope: Construct, id: string, props: SpotInterruptionsProps) {
    super(scope, id);
    this.securityGroup = new SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: 'gridgate interruption handler: out to AWS endpoints',
      allowAllOutbound: true,
    });
    this.function = gridFunction(this, 'Function', {
      entry: 'pools/ecs/spot-interruption-lambda.ts',
      description: 'gridgate: marks sessions whose Spot browser AWS reclaims',
      configFile: props.configFile,
      environment: props.environment,
      timeout: Duration.seconds(30),
      memorySize: 256,
      vpc: props.vpc,
      vpcSubnets: props.subnets,
      securityGroups: [this.securityGroup],
      logRetention: props.logRetention,
    });
    this.rule = new Rule(this, 'Rule', {
      description: 'gridgate: Fargate Spot reclaims of browser tasks',
      eventPattern: {
        source: ['aws.ecs'],
        detailType: ['ECS Task State Change'],
        detail: { clusterArn: [props.cluster.clusterArn], stopCode: SPOT_STOP_CODES },
      },
      targets: [new LambdaFunction(this.function, { retryAttempts: 2 })],
    });
  }
}
