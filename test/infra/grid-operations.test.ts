/** What the stack runs beside the front door for operators: the cleanup and Spot handler schedules, the dashboard, the alarms. */
import { Duration } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { describe, expect, it } from 'vitest';
import { FUNCTION, functionProps, logicalId, multiPoolTemplate } from './grid-stack-fixture';

describe('the cleanup and the Spot interruption handler', () => {
  const template = multiPoolTemplate();

  it('runs the cleanup every minute, without retries, for real unless DRY_RUN', () => {
    const cleanup = logicalId(template, FUNCTION, 'CleanupFunction');
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [cleanup, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0 },
        }),
      ],
    });
    const props = functionProps(template, 'CleanupFunction');
    expect(props.Environment.Variables.DRY_RUN).toBe('false');
    // Shorter than the schedule: two runs never overlap.
    expect(props.Timeout).toBeLessThan(60);
    const dry = multiPoolTemplate({ cleanup: { dryRun: true } });
    expect(functionProps(dry, 'CleanupFunction').Environment.Variables.DRY_RUN).toBe('true');
  });

  it('runs one cleanup pass at a time: Lambda neither retries a failed pass nor runs two at once', () => {
    const cleanup = logicalId(template, FUNCTION, 'CleanupFunction');
    // Lambda's own asynchronous retries (twice by default) would re-run a failed pass beside the next one.
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: cleanup },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
    expect(functionProps(template, 'CleanupFunction').ReservedConcurrentExecutions).toBe(1);
  });

  it("keeps the router's network interfaces in use: the cleanup runs in the same subnets and groups", () => {
    // Lambda shares one interface per subnet and security-group combination and reclaims one unused for
    // weeks; the cleanup uses the router's every minute.
    const vpcOf = (prefix: string) => {
      const { SecurityGroupIds, SubnetIds } = functionProps(template, prefix).VpcConfig;
      const sorted = (refs: unknown[]) => refs.map((ref) => JSON.stringify(ref)).sort();
      return { groups: sorted(SecurityGroupIds), subnets: sorted(SubnetIds) };
    };
    const router = vpcOf('FrontDoorRouter');
    expect(router.groups).toHaveLength(2);
    expect(vpcOf('CleanupFunction')).toEqual(router);
  });

  it('routes only the grid cluster’s Spot reclaim notices to the interruption handler', () => {
    const cluster = logicalId(template, 'AWS::ECS::Cluster', 'BrowsersCluster');
    const handler = logicalId(template, FUNCTION, 'SpotInterruptionsFunction');
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.ecs'],
        'detail-type': ['ECS Task State Change'],
        detail: {
          clusterArn: [{ 'Fn::GetAtt': [cluster, 'Arn'] }],
          stopCode: ['SpotInterruption', 'TerminationNotice'],
        },
      },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [handler, 'Arn'] } })],
    });
  });

  it('gives every function the same deployment facts', () => {
    const facts = ['FrontDoorRouter', 'CleanupFunction', 'SpotInterruptionsFunction'].map(
      (prefix) => functionProps(template, prefix).Environment.Variables.GRIDGATE_DEPLOYMENT,
    );
    expect(facts[1]).toEqual(facts[0]);
    expect(facts[2]).toEqual(facts[0]);
  });
});

/** The dashboard body with every CloudFormation reference replaced by "REF", parsed. */
function dashboardBody(template: Template): {
  widgets: Array<{ type: string; properties: Record<string, unknown> }>;
} {
  const body = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]?.Properties
    .DashboardBody;
  const parts: unknown[] = body['Fn::Join'][1];
  return JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'REF')).join(''));
}

describe('the dashboard', () => {
  const template = multiPoolTemplate();
  const body = dashboardBody(template);
  const titles = body.widgets.map((widget) => widget.properties.title);
  const widget = (title: string) => {
    const found = body.widgets.find((w) => w.properties.title === title);
    if (!found) throw new Error(`no widget "${title}" in ${titles.join(' | ')}`);
    return found.properties.metrics as unknown[][];
  };
  // Math, Metrics Insights and SEARCH lines are objects with an `expression` in a widget's metrics.
  const expressions = (title: string) =>
    widget(title)
      .flat()
      .flatMap((item) =>
        typeof item === 'object' && item && 'expression' in item ? [String(item.expression)] : [],
      );

  it('has a widget for each thing a person checks', () => {
    expect(titles).toEqual(
      expect.arrayContaining([
        'Active sessions',
        'New sessions per minute: requested, created, failed by stage',
        'New-session latency (ms): p50, p90, p99',
        'New-session latency by stage (ms): launch, driver ready, session',
        'Queue wait for a free slot (ms)',
        'Cold vs warm starts (ms): p50 and p90 per pool',
        'Spot: share of launches, fallbacks to on-demand, interruptions',
        'Orphans reaped by the cleanup, by reason',
        'Router errors and throttles',
        'Router duration (ms) and invocations',
        'Running browser tasks',
        'Estimated cost per day (USD)',
        'Estimated cost per session (USD, hourly)',
        'Recorded cost of ended sessions per hour, by pool (USD)',
        'Recorded cost per ended session, by pool (USD, hourly average)',
        'Alarms',
      ]),
    );
  });

  it("queries gridgate's own metric names, summed over every dimension", () => {
    expect(expressions('New sessions per minute: requested, created, failed by stage')).toEqual([
      'SELECT SUM(SessionsRequested) FROM gridgate',
      'SELECT SUM(SessionsCreated) FROM gridgate',
      'SELECT SUM(SessionsFailed) FROM gridgate GROUP BY stage',
    ]);
    expect(expressions('Orphans reaped by the cleanup, by reason')).toEqual([
      'SELECT SUM(OrphansReaped) FROM gridgate GROUP BY reason',
    ]);
    expect(expressions('New-session latency (ms): p50, p90, p99')).toEqual(
      ['p50', 'p90', 'p99'].map(
        (stat) => `SEARCH('Namespace="gridgate" MetricName="NewSessionLatency"', '${stat}', 60)`,
      ),
    );
  });

  it('shows cold and warm starts apart, per pool: one line per pool and start kind', () => {
    expect(expressions('Cold vs warm starts (ms): p50 and p90 per pool')).toEqual(
      ['p50', 'p90'].map(
        (stat) => `SEARCH('Namespace="gridgate" MetricName="BrowserStartLatency"', '${stat}', 60)`,
      ),
    );
  });

  it("counts active sessions over all pools: each pool's latest gauge, added up", () => {
    // The cleanup writes one ActiveSessions gauge per pool each minute; the grid's total is their sum.
    expect(expressions('Active sessions')).toEqual([
      `SUM(SEARCH('Namespace="gridgate" MetricName="ActiveSessions"', 'Maximum', 60))`,
    ]);
    expect(expressions('Active sessions by pool')).toEqual([
      'SELECT MAX(ActiveSessions) FROM gridgate GROUP BY pool',
    ]);
  });

  it('computes the Spot share over the Spot pools only', () => {
    const [share] = expressions('Spot: share of launches, fallbacks to on-demand, interruptions').filter(
      (e) => e.startsWith('100 *'),
    );
    expect(share).toContain('MetricName="LaunchStageLatency" stage="launch" (pool="chrome-spot")');
    expect(share).not.toContain('chromium-arm');
  });

  it("reads API Gateway's metrics under the API's own name", () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'Gridgate-webdriver' });
    const errors = JSON.stringify(widget('Router errors and throttles'));
    expect(errors).toContain('["AWS/ApiGateway","5XXError","ApiName","Gridgate-webdriver"');
  });

  it('estimates cost from running tasks, router time and requests, with the list prices', () => {
    const cost = JSON.stringify(widget('Estimated cost per day (USD)'));
    // chrome-spot: (1 × 0.04048 + 2 × 0.004445) × 0.3 / 3600; chromium-arm: (2 × 0.03238 + 4 × 0.00356) / 3600; averaged.
    const perTaskSecond = ((1 * 0.04048 + 2 * 0.004445) * 0.3 + (2 * 0.03238 + 4 * 0.00356)) / 3600 / 2;
    expect(cost).toContain(`tasks * 86400 * ${perTaskSecond.toFixed(12).replace(/0+$/, '')}`);
    expect(cost).toContain('ECS/ContainerInsights');
    expect(cost).toContain('requests * 0.0000035');
  });

  it('sums the costs per user and pool from the log lines of the router and the cleanup', () => {
    const table = body.widgets.find((w) => w.type === 'log');
    expect(table?.properties.title).toBe(
      'Recorded cost of ended sessions by user and pool (USD, the time range shown)',
    );
    expect(table?.properties.view).toBe('table');
    const query = String(table?.properties.query).replace(/\s+/g, ' ');
    expect(query).toMatch(/^SOURCE 'REF' \| SOURCE 'REF' \| fields user, pool, costDollars/);
    expect(query).toContain(
      'filter ispresent(costDollars) | stats sum(costDollars) as dollars, count(*) as sessions by user, pool',
    );
    // The two sources are the log groups the router and the cleanup functions write to.
    const raw = JSON.stringify(
      Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]?.Properties.DashboardBody,
    );
    for (const prefix of ['FrontDoorRouter', 'CleanupFunction']) {
      const [, fn] = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
        id.startsWith(prefix),
      ) ?? [undefined, undefined];
      const group = fn?.Properties.LoggingConfig.LogGroup.Ref;
      expect(group).toMatch(new RegExp(`^${prefix}Logs`));
      expect(raw).toContain(`SOURCE '",{"Ref":"${group}"}`);
    }
  });

  it("sums and averages the SessionCost each ended session's record carries, per pool", () => {
    expect(expressions('Recorded cost of ended sessions per hour, by pool (USD)')).toEqual([
      'SELECT SUM(SessionCost) FROM gridgate GROUP BY pool',
    ]);
    expect(expressions('Recorded cost per ended session, by pool (USD, hourly average)')).toEqual([
      'SELECT AVG(SessionCost) FROM gridgate GROUP BY pool',
    ]);
  });
});

describe('the alarms', () => {
  const template = multiPoolTemplate({ alarms: { email: 'grid-owners@example.com' } });

  it('watches the new-session failure rate, orphan reaps, the cleanup and router throttles', () => {
    template.resourceCountIs('AWS::CloudWatch::Alarm', 5);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 20,
      Namespace: 'gridgate',
      MetricName: 'SessionFailurePercent',
      Dimensions: [{ Name: 'service', Value: 'router' }],
      Statistic: 'Average',
      Period: 300,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: [
        Match.objectLike({ Expression: 'SELECT SUM(OrphansReaped) FROM gridgate', ReturnData: true }),
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
      Dimensions: [
        { Name: 'FunctionName', Value: { Ref: logicalId(template, FUNCTION, 'FrontDoorRouter') } },
      ],
    });
  });

  it('alarms when cleanup passes fail, and when none ran for three intervals (silence breaches)', () => {
    const cleanup = {
      Name: 'FunctionName',
      Value: { Ref: logicalId(template, FUNCTION, 'CleanupFunction') },
    };
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [cleanup],
      Statistic: 'Sum',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      TreatMissingData: 'notBreaching',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [cleanup],
      Statistic: 'Sum',
      // Every minute by default: no pass in 5 minutes (the floor of three intervals) is an alarm.
      Period: 300,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
    const hourly = multiPoolTemplate({ cleanup: { schedule: Schedule.rate(Duration.hours(1)) } });
    hourly.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Invocations',
      Period: 3 * 3600,
      TreatMissingData: 'breaching',
    });
  });

  it('tells an SNS topic when an address is given, and nobody otherwise', () => {
    const topic = logicalId(template, 'AWS::SNS::Topic', 'AlarmsTopic');
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'grid-owners@example.com',
    });
    template.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [{ Ref: topic }],
      OKActions: [{ Ref: topic }],
    });
    const quiet = multiPoolTemplate();
    quiet.resourceCountIs('AWS::SNS::Topic', 0);
    quiet.allResourcesProperties('AWS::CloudWatch::Alarm', { AlarmActions: Match.absent() });
  });
});
