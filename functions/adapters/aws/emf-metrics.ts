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
const HIGH_RESOLUTION: ReadonlySet<MetricName> = new Set([
  'NewSessionLatency',
  'LaunchStageLatency',
  'BrowserStartLatency',
]);

/**
 * The CloudWatch unit of every metric gridgate writes, keyed by every name the port knows: a name added to
 * MetricName without a unit here does not compile (the Prometheus adapter has the same table).
 */
export const EMF_UNITS: Record<MetricName, Unit> = {
  SessionsRequested: MetricUnit.Count,
  SessionsCreated: MetricUnit.Count,
  SessionsFailed: MetricUnit.Count,
  SessionFailurePercent: MetricUnit.Percent,
  NewSessionLatency: MetricUnit.Milliseconds,
  LaunchStageLatency: MetricUnit.Milliseconds,
  BrowserStartLatency: MetricUnit.Milliseconds,
  QueueWait: MetricUnit.Milliseconds,
  SpotFallbacks: MetricUnit.Count,
  SpotInterruptions: MetricUnit.Count,
  OrphansReaped: MetricUnit.Count,
  UpstreamErrors: MetricUnit.Count,
  Commands: MetricUnit.Count,
  TestResults: MetricUnit.Count,
  // US dollars: CloudWatch has no currency unit.
  SessionCost: MetricUnit.NoUnit,
  ActiveSessions: MetricUnit.Count,
  PoolCapacity: MetricUnit.Count,
  QueueWaiting: MetricUnit.Count,
};

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
    this.emit(name, value, dimensions);
  }

  timing(name: MetricName, ms: number, dimensions?: MetricDimensions): void {
    this.emit(name, ms, dimensions);
  }

  gauge(name: MetricName, value: number, dimensions?: MetricDimensions): void {
    this.emit(name, value, dimensions);
  }

  private emit(name: MetricName, value: number, dimensions: MetricDimensions = {}) {
    const single = this.powertools.singleMetric();
    for (const [dimension, label] of Object.entries(dimensions)) {
      // CloudWatch refuses empty dimension values; an absent label is simply not a dimension.
      if (label) single.addDimension(dimension, label);
    }
    const resolution = HIGH_RESOLUTION.has(name) ? MetricResolution.High : MetricResolution.Standard;
    single.addMetric(name, EMF_UNITS[name], value, resolution);
  }
}
