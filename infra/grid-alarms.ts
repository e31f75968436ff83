/**
 * Alarms that need a person: many new sessions failing, the cleanup reaping leaked browsers (the
 * router's own clean-up missed them), the cleanup itself failing or not running (then leaks go unseen),
 * and requests throttled. Optionally sent to an SNS topic.
 */
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { NAMESPACE, total } from './grid-metrics';

export interface GridAlarmsProps {
  /** The router Lambda, for its throttles (absent for a Web Function front door). */
  routerFunction?: IFunction;
  /** The scheduled cleanup, for its errors and missed passes; `interval` is its schedule's (undefined: cron). */
  cleanup?: { function: IFunction; interval?: Duration };
  /** Send alarm and OK notifications here. @default a new topic if `email` is set, else none */
  topic?: ITopic;
  /** Subscribe this address to a new topic. */
  email?: string;
  /** Alarm when more than this percentage of new sessions fail over 15 minutes. @default 20 */
  failureRatePercent?: number;
  /** Alarm when the cleanup reaps more than this many browsers in 15 minutes. @default 3 */
  orphanReaps?: number;
}

const WINDOW = Duration.minutes(5);

export class GridAlarms extends Construct {
  readonly failureRate: Alarm;
  readonly orphanReaps: Alarm;
  readonly throttles?: Alarm;
  readonly cleanupErrors?: Alarm;
  readonly cleanupMissed?: Alarm;
  readonly topic?: ITopic;

  constructor(scope: Construct, id: string, props: GridAlarmsProps = {}) {
    super(scope, id);
    this.topic =
      props.topic ??
      (props.email
        ? new Topic(this, 'Topic', { displayName: 'gridgate alarms', enforceSSL: true })
        : undefined);
    if (props.email && this.topic instanceof Topic)
      this.topic.addSubscription(new EmailSubscription(props.email));

    // The router writes 100 per failed new-session request and 0 per created one, with no dimension but
    // its service: the average is the failure rate, one plain metric (an alarm on math over Metrics
    // Insights queries is not something to find out about at deploy time).
    this.failureRate = new Alarm(this, 'FailureRate', {
      alarmDescription:
        'gridgate: many new sessions fail. Dashboard: "New sessions per minute"; logs: SESSION_FAILED.',
      metric: new Metric({
        namespace: NAMESPACE,
        metricName: 'SessionFailurePercent',
        dimensionsMap: { service: 'router' },
        statistic: 'Average',
        period: WINDOW,
      }),
      threshold: props.failureRatePercent ?? 20,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.orphanReaps = new Alarm(this, 'OrphanReaps', {
      alarmDescription:
        "gridgate: the cleanup keeps stopping leaked browsers, so the router's own clean-up is missing them.",
      metric: total('OrphansReaped', { period: Duration.minutes(15) }),
      threshold: props.orphanReaps ?? 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      // No reaps write no data, which is fine; a cleanup that stopped running is the CleanupMissed alarm's.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.cleanup) {
      const { function: cleanup, interval } = props.cleanup;
      // A pass that throws or times out: leaked browsers stay (≈ $36 a month each for a docker-selenium task).
      this.cleanupErrors = new Alarm(this, 'CleanupErrors', {
        alarmDescription:
          'gridgate: cleanup passes fail, so leaked browsers are not stopped. Logs: the cleanup function’s.',
        metric: cleanup.metricErrors({ period: WINDOW, statistic: 'Sum' }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      // No invocation at all (schedule disabled, function throttled or deleted) writes no data: missing
      // data here is the failure, so it breaches.
      this.cleanupMissed = new Alarm(this, 'CleanupMissed', {
        alarmDescription:
          'gridgate: the cleanup has not run for several of its intervals: nothing stops leaked browsers.',
        metric: cleanup.metricInvocations({ period: missedPassWindow(interval), statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.BREACHING,
      });
    }
    if (props.routerFunction) {
      this.throttles = new Alarm(this, 'Throttles', {
        alarmDescription:
          'gridgate: router invocations are throttled (account or reserved concurrency): clients get 429/502.',
        metric: props.routerFunction.metricThrottles({ period: WINDOW }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
    if (this.topic) {
      for (const alarm of this.all) {
        alarm.addAlarmAction(new SnsAction(this.topic));
        alarm.addOkAction(new SnsAction(this.topic));
      }
    }
  }

  get all(): Alarm[] {
    return [
      this.failureRate,
      this.orphanReaps,
      ...(this.cleanupErrors ? [this.cleanupErrors] : []),
      ...(this.cleanupMissed ? [this.cleanupMissed] : []),
      ...(this.throttles ? [this.throttles] : []),
    ];
  }
}

/**
 * Three of the cleanup's intervals, at least 5 minutes (one late pass is no alarm) and at most a day (an
 * alarm's evaluation range); a cron schedule, whose interval is unknown here, gets the day.
 */
function missedPassWindow(interval: Duration | undefined): Duration {
  if (interval === undefined) return Duration.days(1);
  const minutes = Math.min(Math.max(3 * interval.toMinutes(), 5), 24 * 60);
  return Duration.minutes(minutes);
}
