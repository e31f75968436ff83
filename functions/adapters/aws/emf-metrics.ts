/**
 * The Metrics port as CloudWatch Embedded Metric Format lines, through Powertools Metrics: Lambda's
 * log stream carries them to CloudWatch with no API call and no agent. Each measurement is written at
 * once as its own record (a "single metric"), so nothing is lost when a streaming invocation ends
 * abruptly, and so each can carry its own dimensions. gridgate measures per session, not per
 * command, so that is a few lines per session.
 */
import { MetricResolution, MetricUnit, Metrics as PowertoolsMetrics } from '@aws-lambda-powertools/metrics';
import type { MetricUnit as Unit } from '@aws-lambda-powertools/metrics/types';
import type { MetricDimensions, MetricName, Metrics } from '../../core/ports';

export const METRICS_NAMESPACE = 'gridgate';

// Start latency is what users wait on: worth 1-second resolution (DESIGN; aws-constraints 14).
const HIGH_RESOLUTION: ReadonlySet<MetricName> = new Set(['NewSessionLatency', 'LaunchStageLatency']);

export interface EmfMetricsOptions {
  /** The `service` dimension every metric carries: which function measured it (router, cleanup…). */
  service: string;
  namespace?: string;
}

export class EmfMetrics implements Metrics {
  private readonly powertools: PowertoolsMetrics;

  constructor({ service, namespace = METRICS_NAMESPACE }: EmfMetricsOptions) {
    this.powertools = new PowertoolsMetrics({ namespace, serviceName: service });
  }

  count(name: MetricName, dimensions?: MetricDimensions, value = 1): void {
    this.emit(name, MetricUnit.Count, value, dimensions);
  }

  timing(name: MetricName, ms: number, dimensions?: MetricDimensions): void {
    this.emit(name, MetricUnit.Milliseconds, ms, dimensions);
  }

  gauge(name: MetricName, value: number, dimensions?: MetricDimensions): void {
    this.emit(
      name,
      name === 'SessionFailurePercent' ? MetricUnit.Percent : MetricUnit.Count,
      value,
      dimensions,
    );
  }

  private emit(name: MetricName, unit: Unit, value: number, dimensions: MetricDimensions = {}) {
    const single = this.powertools.singleMetric();
    for (const [dimension, label] of Object.entries(dimensions)) {
      // CloudWatch refuses empty dimension values; an absent label is simply not a dimension.
      if (label) single.addDimension(dimension, label);
    }
    const resolution = HIGH_RESOLUTION.has(name) ? MetricResolution.High : MetricResolution.Standard;
    single.addMetric(name, unit, value, resolution);
  }
}
