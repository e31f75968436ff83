/**
 * The Metrics port as Prometheus series for the Node server's `GET /metrics`, through prom-client: the
 * same calls that become EMF records in Lambda become counters, histograms (seconds) and gauges here,
 * named the Prometheus way with the `gridgate_` prefix, plus the client's default process metrics.
 * Everything is measured per session or per scrape; nothing here runs per command.
 */
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from 'prom-client';
import type { MetricDimensions, MetricName, Metrics } from '../../core/ports';

/** What each metric name becomes; `derived` names have no series of their own (a query computes them). */
export type PrometheusSeries =
  | { kind: 'counter' | 'histogram' | 'gauge'; name: string; help: string }
  | { kind: 'derived'; query: string };

/**
 * Every name the port knows, keyed like the EMF adapter's units: a name added to MetricName without a
 * series here does not compile.
 */
export const PROMETHEUS_SERIES: Record<MetricName, PrometheusSeries> = {
  SessionsRequested: {
    kind: 'counter',
    name: 'gridgate_sessions_requested_total',
    help: 'New-session requests, by browser',
  },
  SessionsCreated: {
    kind: 'counter',
    name: 'gridgate_sessions_created_total',
    help: 'Sessions created, by pool and browser',
  },
  SessionsFailed: {
    kind: 'counter',
    name: 'gridgate_sessions_failed_total',
    help: 'New-session requests that got no session, by the stage they failed at',
  },
  // CloudWatch averages a 0-or-100 gauge into a rate; Prometheus divides the two counters instead.
  SessionFailurePercent: {
    kind: 'derived',
    query:
      '100 * sum(rate(gridgate_sessions_failed_total[5m])) / sum(rate(gridgate_sessions_requested_total[5m]))',
  },
  NewSessionLatency: {
    kind: 'histogram',
    name: 'gridgate_new_session_seconds',
    help: 'Time from a new-session request to its answer, by outcome and pool',
  },
  LaunchStageLatency: {
    kind: 'histogram',
    name: 'gridgate_launch_stage_seconds',
    help: 'Time a browser spent in each launch stage, by pool and stage',
  },
  QueueWait: {
    kind: 'histogram',
    name: 'gridgate_queue_wait_seconds',
    help: 'Time waited for a slot, by pool',
  },
  SpotFallbacks: {
    kind: 'counter',
    name: 'gridgate_spot_fallbacks_total',
    help: 'Browsers started on demand because Fargate Spot had no capacity',
  },
  SpotInterruptions: {
    kind: 'counter',
    name: 'gridgate_spot_interruptions_total',
    help: 'Browsers Fargate Spot took back',
  },
  OrphansReaped: {
    kind: 'counter',
    name: 'gridgate_orphans_reaped_total',
    help: 'Browsers, records and slots the cleanup removed, by reason',
  },
  UpstreamErrors: {
    kind: 'counter',
    name: 'gridgate_upstream_errors_total',
    help: 'Commands that could not reach their browser, by pool',
  },
  Commands: {
    kind: 'counter',
    name: 'gridgate_commands_total',
    help: 'Commands sent by sessions, counted when each session ends, by pool',
  },
  SessionCost: {
    kind: 'counter',
    name: 'gridgate_session_cost_dollars_total',
    help: 'Estimated cost of ended cloud sessions in US dollars, by pool (docs/metrics.md)',
  },
  ActiveSessions: { kind: 'gauge', name: 'gridgate_sessions_active', help: 'Slots in use, by pool' },
  PoolCapacity: { kind: 'gauge', name: 'gridgate_pool_capacity', help: 'Sessions a pool may hold at once' },
  QueueWaiting: {
    kind: 'gauge',
    name: 'gridgate_queue_waiting',
    help: 'New-session requests waiting for a slot each pool could give',
  },
};

// Every dimension the port has; a call names some of them (prom-client accepts any subset).
const LABELS = ['pool', 'browser', 'outcome', 'stage', 'reason', 'color'] as const;
// From a warm local browser's handshake (~0.1 s) to a cold Fargate task pulling its image (minutes).
const SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];

const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Every series of one registry, as prom-client's JSON. */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

type Instrument = Counter<string> | Histogram<string> | Gauge<string>;

export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly instruments = new Map<MetricName, Instrument>();
  private readonly levels: ((metrics: Metrics) => Promise<void>)[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
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

  count(name: MetricName, dimensions?: MetricDimensions, value = 1): void {
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

  /** Adds what sets the gauges, run at every scrape (levels are read when asked, never kept up per request). */
  onScrape(report: (metrics: Metrics) => Promise<void>): void {
    this.levels.push(report);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition: gauges emptied and set again (a pool a reload removed disappears), then everything. */
  async scrape(): Promise<string> {
    await this.measureLevels();
    return this.registry.metrics();
  }

  /** The same, as prom-client's JSON: what a server's primary merges with its workers' (cluster-metrics.ts). */
  async snapshot(): Promise<MetricsSnapshot> {
    await this.measureLevels();
    return this.registry.getMetricsAsJSON();
  }

  private async measureLevels(): Promise<void> {
    for (const instrument of this.instruments.values()) if (instrument instanceof Gauge) instrument.reset();
    await Promise.all(this.levels.map((report) => report(this)));
  }
}

/** The dimensions that carry a value: an absent label is no label, as in EMF. */
function labels(dimensions: MetricDimensions = {}): Partial<Record<string, string>> {
  const present: Partial<Record<string, string>> = {};
  for (const [label, value] of Object.entries(dimensions)) if (value) present[label] = value;
  return present;
}
