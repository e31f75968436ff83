/**
 * The backstop of "nothing leaks": the cleanup Lambda (functions/entry/cleanup-lambda.ts) on an
 * EventBridge schedule, stopping browser tasks whose sessions ended or never began and ending records
 * whose browsers are gone.
 */
import { Duration } from 'aws-cdk-lib';
import { type ISubnet, type IVpc, SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { gridFunction } from './grid-function';

export interface OrphanCleanupProps {
  vpc: IVpc;
  subnets: ISubnet[];
  configFile?: string;
  environment: Record<string, string>;
  /**
   * How often it runs. Each run is a few ECS and DynamoDB calls (ListTasks, DescribeTasks in hundreds,
   * a table query): every minute costs ≈ 44,000 invocations a month, within Lambda's free tier.
   * @default every minute
   */
  schedule?: Schedule;
  /** Report what would be stopped without stopping it (env DRY_RUN). @default false */
  dryRun?: boolean;
  logRetention?: RetentionDays;
}

export class OrphanCleanup extends Construct {
  readonly function: NodejsFunction;
  readonly rule: Rule;
  readonly securityGroup: SecurityGroup;
  /** The time between passes; undefined for a cron schedule, which has no one interval. */
  readonly interval?: Duration;

  constructor(scope: Construct, id: string, props: OrphanCleanupProps) {
    super(scope, id);
    const schedule = props.schedule ?? Schedule.rate(Duration.minutes(1));
    this.interval = intervalOf(schedule);
    this.securityGroup = new SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: 'gridgate cleanup: out to AWS endpoints and browsers',
      allowAllOutbound: true,
    });
    this.function = gridFunction(this, 'Function', {
      entry: 'entry/cleanup-lambda.ts',
      description: 'gridgate cleanup: stops orphaned browser tasks, ends records of vanished browsers',
      configFile: props.configFile,
      environment: {
        ...props.environment,
        DRY_RUN: String(props.dryRun ?? false),
        // Warm pools are sized from demand per interval (functions/pools/ecs/warm-pool-size.ts); a cron schedule
        // has no one interval, so the function's default holds.
        ...(this.interval ? { CLEANUP_INTERVAL: `${this.interval.toMinutes()}m` } : {}),
      },
      // Shorter than the schedule, so two runs never overlap.
      timeout: Duration.seconds(50),
      // The schedule's target already retries nothing (retryAttempts below), but Lambda retries a failed
      // asynchronous invocation twice by itself ("Error handling and automatic retries in Lambda";
      // AWS::Lambda::EventInvokeConfig MaximumRetryAttempts): a retry would run beside the next scheduled
      // pass. No retries, and one pass at a time: a pass that fails is the next minute's pass.
      retryAttempts: 0,
      reservedConcurrentExecutions: 1,
      // A pass throttled behind a running one waits in Lambda's queue; one older than a minute is stale
      // (the next scheduled pass is due), so Lambda drops it instead of running passes back to back.
      maxEventAge: Duration.minutes(1),
      memorySize: 256,
      vpc: props.vpc,
      vpcSubnets: props.subnets,
      securityGroups: [this.securityGroup],
      logRetention: props.logRetention,
    });
    this.rule = new Rule(this, 'Schedule', {
      description: 'gridgate: run the orphan cleanup',
      schedule,
      targets: [new LambdaFunction(this.function, { retryAttempts: 0 })],
    });
  }
}

const RATE = /^rate\((\d+) (minute|hour|day)s?\)$/;
const MINUTES = { minute: 1, hour: 60, day: 24 * 60 } as const;

/** The interval of a rate schedule; undefined for a cron schedule. */
function intervalOf(schedule: Schedule): Duration | undefined {
  const match = RATE.exec(schedule.expressionString);
  if (!match) return undefined;
  const [, count, unit] = match as unknown as [string, string, keyof typeof MINUTES];
  return Duration.minutes(Number(count) * MINUTES[unit]);
}
