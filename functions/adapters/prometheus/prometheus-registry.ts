/**
 * The prom-client side of the Node server's metrics: one registry holding a counter, histogram (seconds)
 * or gauge for every series of PROMETHEUS_SERIES, plus the client's default process metrics. Loaded by
 * PrometheusMetrics with the first measurement or scrape, not at start: an idle server never needs it.
 */
import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from 'prom-client';
import type { MetricDimensions, MetricName } from '../../core/ports';
import { PROMETHEUS_SERIES, type PrometheusSeries } from './prometheus-series';

// Every dimension the port has; a call names some of them (prom-client accepts any subset).
const LABELS = ['pool', 'browser', 'outcome', 'stage', 'reason', 'color', 'start'] as const;
// From a warm local browser's handshake (~0.1 s) to a cold Fargate task pulling its image (minutes).
const SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];

// prom-client samples the event loop's delay every 10 ms by default: a hundred wake-ups a second of an
// otherwise idle server, each a context switch on machines its browsers keep busy. Ten a second still
// catch any stall a scrape interval would show.
const EVENT_LOOP_SAMPLE_MS = 100;

const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Every series of one registry, as prom-client's JSON. */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

type Instrument = Counter<string> | Histogram<string> | Gauge<string>;

export class PrometheusRegistry {
  private readonly registry = new Registry();
  private readonly instruments = new Map<MetricName, Instrument>();

  constructor() {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    // Gauges the client names like counters (Prometheus's lint refuses them); the same counts by type stay.
    for (const misnamed of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(misnamed);
    for (const [metric, series] of Object.entries(PROMETHEUS_SERIES) as [MetricName, PrometheusSeries][]) {
      if (series.kind === 'derived') continue;
      const options = {
        name: series.name,
        help: series.help,
        labelNames: LABELS,
        registers: [this.registry],
      };
      const instrument =
        series.kind === 'counter'
          ? new Counter(options)
          : series.kind === 'histogram'
            ? new Histogram({ ...options, buckets: SECONDS_BUCKETS })
            : new Gauge(options);
      this.instruments.set(metric, instrument);
    }
  }

  count(name: MetricName, dimensions: MetricDimensions | undefined, value: number): void {
    const counter = this.instruments.get(name);
    if (counter instanceof Counter) counter.inc(labels(dimensions), value);
  }

  timing(name: MetricName, ms: number, dimensions?: MetricDimensions): void {
    const histogram = this.instruments.get(name);
    if (histogram instanceof Histogram) histogram.observe(labels(dimensions), ms / 1000);
  }

  gauge(name: MetricName, value: number, dimensions?: MetricDimensions): void {
    const gauge = this.instruments.get(name);
    if (gauge instanceof Gauge) gauge.set(labels(dimensions), value);
  }

  /** Empties every gauge, so that a level no longer reported (a pool a reload removed) disappears. */
  resetGauges(): void {
    for (const instrument of this.instruments.values()) if (instrument instanceof Gauge) instrument.reset();
  }

  /** The text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The same as prom-client's JSON. */
  snapshot(): Promise<MetricsSnapshot> {
    return this.registry.getMetricsAsJSON();
  }
}

/** Several registries' JSON as one text exposition (cluster-metrics.ts): counters and histograms summed. */
export function aggregatedText(snapshots: MetricsSnapshot[]): Promise<string> {
  return AggregatorRegistry.aggregate(snapshots).metrics();
}

/** The dimensions that carry a value: an absent label is no label, as in EMF. */
function labels(dimensions: MetricDimensions = {}): Partial<Record<string, string>> {
  const present: Partial<Record<string, string>> = {};
  for (const [label, value] of Object.entries(dimensions)) if (value) present[label] = value;
  return present;
}
