/**
 * gridgate's own CloudWatch metrics as dashboard and alarm queries. The functions write them as EMF
 * (functions/adapters/aws/emf-metrics.ts) in namespace `gridgate`, each with a `service` dimension
 * (router, cleanup, interruption) plus whichever of pool, browser, outcome, stage, reason applies
 * (functions/core/ports.ts). Because every combination is its own series, queries here aggregate across
 * dimensions: Metrics Insights for sums (SELECT … GROUP BY), SEARCH for percentiles.
 */
import { Duration } from 'aws-cdk-lib';
import { type IMetric, MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { MetricDimensions, MetricName } from '../functions/core/ports';

export const NAMESPACE = 'gridgate';
type Dimension = keyof MetricDimensions;

/** SUM of a counter across every series, or one line per value of `groupBy`. */
export function total(
  metric: MetricName,
  options: { groupBy?: Dimension; label?: string; period?: Duration; fn?: 'SUM' | 'MAX' | 'AVG' } = {},
): IMetric {
  const group = options.groupBy ? ` GROUP BY ${options.groupBy}` : '';
  return new MathExpression({
    expression: `SELECT ${options.fn ?? 'SUM'}(${metric}) FROM ${NAMESPACE}${group}`,
    usingMetrics: {},
    label: options.label ?? (options.groupBy ? '' : metric),
    period: options.period ?? Duration.minutes(1),
  });
}

/** A percentile (p50, p90, p99…) of a timing: one line per dimension combination (percentiles do not add up). */
export function percentile(
  metric: MetricName,
  stat: string,
  options: { filter?: Partial<Record<Dimension, string>>; period?: Duration } = {},
): IMetric {
  const filter = Object.entries(options.filter ?? {})
    .map(([name, value]) => ` ${name}="${value}"`)
    .join('');
  return new MathExpression({
    expression: `SEARCH('Namespace="${NAMESPACE}" MetricName="${metric}"${filter}', '${stat}', ${(options.period ?? Duration.minutes(1)).toSeconds()})`,
    usingMetrics: {},
    label: stat,
    period: options.period ?? Duration.minutes(1),
  });
}

/** A SEARCH summed into one series, for use inside math: `SUM(SEARCH(…))`. */
export function summedSearch(metric: MetricName, stat: string, period: Duration): string {
  return `SUM(SEARCH('Namespace="${NAMESPACE}" MetricName="${metric}"', '${stat}', ${period.toSeconds()}))`;
}
