import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { emittedMetrics } from './emitted-metrics';
import { multiPoolTemplate, ROOT } from './grid-stack-fixture';

/** One read of a gridgate metric: its name and the dimensions it filters or groups by. */
interface Reference {
  where: string;
  metric: string;
  dimensions: Record<string, string | undefined>;
  /** Whether the read names its series exactly (a plain metric), so no other dimension may exist. */
  exact: boolean;
}

const NAMESPACE = 'gridgate';

/** Every gridgate metric the expression reads: Metrics Insights SELECTs and SEARCHes. */
function expressionReferences(where: string, expression: string): Reference[] {
  const found: Reference[] = [];
  for (const match of expression.matchAll(
    /SELECT \w+\((\w+)\) FROM (\w+)(?: WHERE (.+?))?(?: GROUP BY ([\w, ]+))?(?=$|\))/g,
  )) {
    const [, metric, namespace, where_, groupBy] = match;
    if (namespace !== NAMESPACE) continue;
    const dimensions: Record<string, undefined> = {};
    for (const key of groupBy?.split(',').map((key) => key.trim()) ?? []) dimensions[key] = undefined;
    for (const [, key] of where_?.matchAll(/(\w+)\s*=/g) ?? []) dimensions[key as string] = undefined;
    found.push({ where, metric: metric as string, dimensions, exact: false });
  }
  for (const [, query] of expression.matchAll(/SEARCH\('([^']*)'/g)) {
    const pairs = Object.fromEntries(
      [...(query as string).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    const { Namespace: namespace, MetricName: metric, ...dimensions } = pairs;
    if (namespace !== NAMESPACE) continue;
    if (!metric) throw new Error(`${where}: a SEARCH without MetricName: ${query}`);
    found.push({ where, metric, dimensions, exact: false });
  }
  if (expression.includes(NAMESPACE) && found.length === 0) {
    throw new Error(`${where}: cannot read the gridgate metrics in ${expression}`);
  }
  return found;
}

/** The gridgate metrics a dashboard widget reads: plain ["gridgate", name, dim, value, …] lines and expressions. */
function dashboardReferences(template: Template): Reference[] {
  const resource = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0];
  const parts: unknown[] = resource?.Properties.DashboardBody['Fn::Join'][1];
  const body = JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'REF')).join(''));
  const found: Reference[] = [];
  for (const widget of body.widgets as Array<{ properties: { title?: string; metrics?: unknown[][] } }>) {
    const where = `widget "${widget.properties.title}"`;
    for (const line of widget.properties.metrics ?? []) {
      if (line[0] === NAMESPACE) {
        const [, metric, ...pairs] = line.filter((item) => typeof item === 'string') as string[];
        const dimensions: Record<string, string> = {};
        for (let i = 0; i + 1 < pairs.length; i += 2) dimensions[pairs[i] as string] = pairs[i + 1] as string;
        found.push({ where, metric: metric as string, dimensions, exact: true });
      }
      for (const item of line) {
        if (typeof item === 'object' && item && 'expression' in item) {
          found.push(...expressionReferences(where, String(item.expression)));
        }
      }
    }
  }
  return found;
}

/** The gridgate metrics the alarms watch: a plain metric, or Metrics with expressions or metric stats. */
function alarmReferences(template: Template): Reference[] {
  const found: Reference[] = [];
  for (const [id, alarm] of Object.entries(template.findResources('AWS::CloudWatch::Alarm'))) {
    const props = alarm.Properties;
    const where = `alarm ${id}`;
    const plain = (metric: { Namespace?: string; MetricName?: string; Dimensions?: unknown[] }) => {
      if (metric.Namespace !== NAMESPACE) return;
      const dimensions = Object.fromEntries(
        ((metric.Dimensions ?? []) as Array<{ Name: string; Value: string }>).map((d) => [d.Name, d.Value]),
      );
      found.push({ where, metric: metric.MetricName as string, dimensions, exact: true });
    };
    plain(props);
    for (const query of props.Metrics ?? []) {
      if (query.Expression) found.push(...expressionReferences(where, query.Expression));
      if (query.MetricStat) plain(query.MetricStat.Metric);
    }
  }
  return found;
}

/** What is wrong with `reference` given what the code emits, or undefined. */
function problem(reference: Reference, emitted: ReturnType<typeof emittedMetrics>): string | undefined {
  const { where, metric, dimensions, exact } = reference;
  const known = emitted.dimensions.get(metric);
  if (!known) return `${where} reads ${metric}, which no code emits`;
  for (const [dimension, value] of Object.entries(dimensions)) {
    if (dimension === 'service') {
      if (value !== undefined && !emitted.services.has(value)) {
        return `${where} reads ${metric} of service "${value}", which is no function's`;
      }
    } else if (!known.has(dimension)) {
      return `${where} reads ${metric} by "${dimension}", a dimension it is never emitted with (${[...known].join(', ') || 'none'})`;
    }
  }
  const own = Object.keys(dimensions).filter((dimension) => dimension !== 'service');
  if (exact && own.length === 0 && !emitted.bare.has(metric)) {
    return `${where} reads ${metric} by service only, but every call site adds dimensions (${[...known].join(', ')}): that series never exists`;
  }
  return undefined;
}

describe('what the dashboard and the alarms read is what the functions emit', () => {
  const emitted = emittedMetrics(ROOT);
  const template = multiPoolTemplate({ alarms: { email: 'ops@example.com' } });
  const references = [...dashboardReferences(template), ...alarmReferences(template)];

  it('finds the metrics the code emits, with their dimensions and services', () => {
    expect([...emitted.dimensions.keys()]).toEqual(
      expect.arrayContaining(['SessionsFailed', 'ActiveSessions']),
    );
    expect([...(emitted.dimensions.get('SessionsFailed') ?? [])]).toEqual(
      expect.arrayContaining(['stage', 'pool']),
    );
    expect([...emitted.services].sort()).toEqual(['cleanup', 'interruption', 'router']);
  });

  it('finds the reads of every gridgate widget and alarm', () => {
    // An expression naming the namespace that no pattern reads throws above, so none is skipped silently.
    const read = new Set(references.map((reference) => reference.metric));
    expect([...read]).toEqual(
      expect.arrayContaining(['ActiveSessions', 'SessionsFailed', 'SessionFailurePercent', 'OrphansReaped']),
    );
  });

  it('reads only metric names and dimensions some call site emits', () => {
    expect(references.map((reference) => problem(reference, emitted)).filter(Boolean)).toEqual([]);
  });

  it('would notice a misspelt metric, an unknown dimension, and a series nobody writes', () => {
    const wrong = (reference: Omit<Reference, 'where'>) => problem({ where: 'test', ...reference }, emitted);
    expect(wrong({ metric: 'ActiveSession', dimensions: {}, exact: false })).toMatch(/no code emits/);
    expect(wrong({ metric: 'ActiveSessions', dimensions: { stage: undefined }, exact: false })).toMatch(
      /never emitted with \(pool/,
    );
    expect(wrong({ metric: 'OrphansReaped', dimensions: { service: 'cleanup' }, exact: true })).toMatch(
      /never exists/,
    );
    expect(wrong({ metric: 'SessionFailurePercent', dimensions: { service: 'routr' }, exact: true })).toMatch(
      /no function's/,
    );
  });
});
