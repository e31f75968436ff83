/**
 * The CloudWatch dashboard a person reads at a glance: sessions (active, per minute by outcome), how
 * long new sessions take and where (stages, queue), Spot, leaks reaped, the router's health, running
 * browser tasks, and what it all costs per session and per day: estimated from running tasks and
 * requests, and as each ended session's record says it cost.
 */
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  LogQueryVisualizationType,
  LogQueryWidget,
  MathExpression,
  Metric,
  SingleValueWidget,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { EcsPoolConfig } from '../functions/core/config';
import { percentile, summedSearch, total } from './grid-metrics';
import { type Prices, taskPricePerSecond, US_EAST_1_PRICES } from './prices';

export interface GridDashboardProps {
  /** The browsers' ECS cluster (Container Insights' TaskCount). */
  clusterName: string;
  pools: EcsPoolConfig[];
  /** The router Lambda, when the front door has one (errors, throttles, duration, cost). */
  routerFunction?: IFunction;
  /** Its memory, for the cost estimate. @default 512 */
  routerMemoryMb?: number;
  /** The REST API, when that is the front door (requests, 4XX/5XX, cost). */
  api?: RestApi;
  /**
   * The log groups of whatever ends sessions (the router, the cleanup): each ended cloud session's log
   * line carries its user, pool and costDollars, summed per user and pool in a table.
   */
  sessionLogGroups?: ILogGroup[];
  /** Shown in an alarm-status row. */
  alarms?: Alarm[];
  /** @default US_EAST_1_PRICES */
  prices?: Prices;
  /** @default a name CloudFormation picks */
  dashboardName?: string;
}

const WIDE = 12;
const MINUTE = Duration.minutes(1);

export class GridDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: GridDashboardProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    const spotPools = props.pools.filter((pool) => pool.spot).map((pool) => pool.name);
    this.dashboard.addWidgets(
      new TextWidget({
        width: 24,
        height: 2,
        markdown:
          '# gridgate\nOne fresh browser per WebDriver session. Metrics: namespace `gridgate` (EMF from the router, cleanup and interruption functions). Costs are estimates from list prices (infra/prices.ts).',
      }),
    );
    this.dashboard.addWidgets(
      new SingleValueWidget({
        title: 'Active sessions',
        width: 6,
        metrics: [activeSessions()],
        sparkline: true,
      }),
      new GraphWidget({
        title: 'Active sessions by pool',
        width: 6,
        left: [total('ActiveSessions', { fn: 'MAX', groupBy: 'pool' })],
      }),
      new GraphWidget({
        title: 'New sessions per minute: requested, created, failed by stage',
        width: WIDE,
        left: [
          total('SessionsRequested', { label: 'requested' }),
          total('SessionsCreated', { label: 'created' }),
          total('SessionsFailed', { groupBy: 'stage' }),
        ],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'New-session latency (ms): p50, p90, p99',
        width: 8,
        left: ['p50', 'p90', 'p99'].map((stat) => percentile('NewSessionLatency', stat)),
      }),
      new GraphWidget({
        title: 'New-session latency by stage (ms): launch, driver ready, session',
        width: 8,
        left: ['p50', 'p90', 'p99'].map((stat) => percentile('LaunchStageLatency', stat)),
      }),
      new GraphWidget({
        // A cold start pulls the image (tens of seconds); a warm one claims a running task (a second or two).
        title: 'Cold vs warm starts (ms): p50 and p90 per pool',
        width: 8,
        left: ['p50', 'p90'].map((stat) => percentile('BrowserStartLatency', stat)),
      }),
      new GraphWidget({
        title: 'Queue wait for a free slot (ms)',
        width: 8,
        left: ['p50', 'p90', 'p99'].map((stat) => percentile('QueueWait', stat)),
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Spot: share of launches, fallbacks to on-demand, interruptions',
        width: 8,
        left: [
          total('SpotFallbacks', { label: 'fallbacks to on-demand' }),
          total('SpotInterruptions', { label: 'interruptions' }),
        ],
        right: spotPools.length > 0 ? [spotShare(spotPools)] : [],
        rightYAxis: { min: 0, max: 100, label: '%' },
      }),
      new GraphWidget({
        title: 'Orphans reaped by the cleanup, by reason',
        width: 8,
        left: [total('OrphansReaped', { groupBy: 'reason' })],
      }),
      new GraphWidget({
        title: 'Running browser tasks',
        width: 8,
        left: [runningTasks(props.clusterName, MINUTE)],
      }),
    );
    this.dashboard.addWidgets(...this.routerWidgets(props), ...this.costWidgets(props));
    if (props.sessionLogGroups && props.sessionLogGroups.length > 0) {
      this.dashboard.addWidgets(costByUser(props.sessionLogGroups));
    }
    if (props.alarms && props.alarms.length > 0) {
      this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', width: 24, alarms: props.alarms }));
    }
  }

  private routerWidgets(props: GridDashboardProps): GraphWidget[] {
    const fn = props.routerFunction;
    const api = props.api;
    const errors: IMetric[] = [total('UpstreamErrors', { groupBy: 'pool' })];
    if (fn)
      errors.push(fn.metricErrors({ label: 'Lambda errors' }), fn.metricThrottles({ label: 'throttles' }));
    if (api) {
      errors.push(
        api.metricServerError({ label: '5XX', period: MINUTE }),
        api.metricClientError({ label: '4XX (incl. 429 throttled)', period: MINUTE }),
      );
    }
    const widgets = [new GraphWidget({ title: 'Router errors and throttles', width: WIDE, left: errors })];
    if (fn) {
      widgets.push(
        new GraphWidget({
          title: 'Router duration (ms) and invocations',
          width: WIDE,
          left: ['p50', 'p99'].map((stat) => fn.metricDuration({ statistic: stat, label: stat })),
          right: [fn.metricInvocations({ label: 'invocations' })],
        }),
      );
    }
    return widgets;
  }

  private costWidgets(props: GridDashboardProps): GraphWidget[] {
    const day = Duration.days(1);
    const hour = Duration.hours(1);
    return [
      new GraphWidget({
        title: 'Estimated cost per day (USD)',
        width: WIDE,
        period: day,
        left: [estimatedCost(props, day)],
      }),
      new GraphWidget({
        title: 'Estimated cost per session (USD, hourly)',
        width: WIDE,
        period: hour,
        left: [
          new MathExpression({
            // Hub sessions count too, at no browser cost of ours: with hub pools this reads low.
            expression: `cost / ${summedSearch('SessionsCreated', 'Sum', hour)}`,
            usingMetrics: { cost: estimatedCost(props, hour) },
            label: 'per session',
            period: hour,
          }),
        ],
      }),
      // What each ended ecs session's record says it cost (functions/core/session-cost.ts): billed
      // seconds at the rate it was placed at, plus its requests; one SessionCost value per session.
      new GraphWidget({
        title: 'Recorded cost of ended sessions per hour, by pool (USD)',
        width: WIDE,
        period: hour,
        left: [total('SessionCost', { groupBy: 'pool', period: hour })],
      }),
      new GraphWidget({
        title: 'Recorded cost per ended session, by pool (USD, hourly average)',
        width: WIDE,
        period: hour,
        left: [total('SessionCost', { fn: 'AVG', groupBy: 'pool', period: hour })],
      }),
    ];
  }
}

/**
 * Sessions in use over the whole grid: the cleanup writes one ActiveSessions gauge per pool each pass, so
 * each pool's series is read at its highest in the minute (two passes may land in one) and the pools are
 * added up. (A MAX over every series would show the busiest pool only.)
 */
function activeSessions(): MathExpression {
  return new MathExpression({
    expression: summedSearch('ActiveSessions', 'Maximum', MINUTE),
    usingMetrics: {},
    label: 'active',
    period: MINUTE,
  });
}

/** ECS Container Insights' count of the cluster's running tasks. */
function runningTasks(clusterName: string, period: Duration): Metric {
  return new Metric({
    namespace: 'ECS/ContainerInsights',
    metricName: 'TaskCount',
    dimensionsMap: { ClusterName: clusterName },
    statistic: Stats.AVERAGE,
    label: 'running tasks',
    period,
  });
}

/** Of the launches in Spot pools, the share that ran on Spot (the rest fell back to on-demand). */
function spotShare(spotPools: string[]): MathExpression {
  const pools = spotPools.map((pool) => `pool="${pool}"`).join(' OR ');
  const launches = `SUM(SEARCH('Namespace="gridgate" MetricName="LaunchStageLatency" stage="launch" (${pools})', 'SampleCount', 60))`;
  return new MathExpression({
    expression: `100 * (1 - ${summedSearch('SpotFallbacks', 'Sum', MINUTE)} / ${launches})`,
    usingMetrics: {},
    label: 'Spot share of launches (%)',
    period: MINUTE,
  });
}

/**
 * Browsers (average running tasks × seconds × a pool-averaged task price), plus the router's Lambda
 * time and requests, plus REST requests. DynamoDB (≈ $3×10⁻⁶ a session), logs and the VPC endpoints'
 * hourly charge are left out: the first is negligible, the others do not vary with sessions.
 */
function estimatedCost(props: GridDashboardProps, period: Duration): MathExpression {
  const prices = props.prices ?? US_EAST_1_PRICES;
  const seconds = period.toSeconds();
  const terms: string[] = [];
  const usingMetrics: Record<string, IMetric> = {};
  if (props.pools.length > 0) {
    const perTaskSecond =
      props.pools.reduce((sum, pool) => sum + taskPricePerSecond(pool, prices), 0) / props.pools.length;
    usingMetrics.tasks = runningTasks(props.clusterName, period);
    terms.push(`tasks * ${seconds} * ${price(perTaskSecond)}`);
  }
  if (props.routerFunction) {
    const gb = (props.routerMemoryMb ?? 512) / 1024;
    usingMetrics.ms = props.routerFunction.metricDuration({ statistic: Stats.SUM, period });
    usingMetrics.calls = props.routerFunction.metricInvocations({ period });
    terms.push(
      `ms / 1000 * ${gb} * ${price(prices.lambdaArmGbSecond)}`,
      `calls * ${price(prices.lambdaRequest)}`,
    );
  }
  if (props.api) {
    usingMetrics.requests = props.api.metricCount({ period });
    terms.push(`requests * ${price(prices.restApiRequest)}`);
  }
  return new MathExpression({
    expression: terms.length > 0 ? terms.join(' + ') : '0',
    usingMetrics,
    label: 'USD',
    period,
  });
}

/**
 * Costs per user are read from the log, never a metric: a user is no metric dimension (cardinality).
 * Every ended session with a cost logs one line with `user`, `pool` and `costDollars`.
 */
function costByUser(logGroups: ILogGroup[]): LogQueryWidget {
  return new LogQueryWidget({
    title: 'Recorded cost of ended sessions by user and pool (USD, the time range shown)',
    width: 24,
    height: 6,
    view: LogQueryVisualizationType.TABLE,
    logGroupNames: logGroups.map((group) => group.logGroupName),
    queryLines: [
      'fields user, pool, costDollars',
      'filter ispresent(costDollars)',
      'stats sum(costDollars) as dollars, count(*) as sessions by user, pool',
      'sort dollars desc',
      'limit 100',
    ],
  });
}

/** Plain decimals: metric math has no exponent notation. */
function price(value: number): string {
  return value.toFixed(12).replace(/0+$/, '');
}
