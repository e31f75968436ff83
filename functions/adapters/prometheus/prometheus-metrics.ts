/**
 * The Metrics port as Prometheus series for the Node server's `GET /metrics`: the same calls that become
 * EMF records in Lambda become the series of PROMETHEUS_SERIES here (prometheus-registry.ts, prom-client).
 * Everything is measured per session or per scrape; nothing here runs per command.
 *
 * prom-client (with @opentelemetry/api, ~1.4 MiB of RSS per process) is loaded by the first measurement
 * or scrape, not at start: a server that nobody scrapes and that runs no session never loads it, and a
 * worker that only relays commands loads it with the first scrape. Measurements made while it loads
 * wait for it, in order. The client's default process metrics (GC, event-loop lag) count from then on.
 * If it cannot be loaded, that is logged once, every scrape fails with the reason, and measurements are
 * dropped rather than kept for a registry that will never come.
 */
import type { Logger, MetricDimensions, MetricName, Metrics } from '../../core/ports';
import type { MetricsSnapshot, PrometheusRegistry } from './prometheus-registry';

export type { MetricsSnapshot } from './prometheus-registry';

// The registry's text: Prometheus text format 0.0.4 (prom-client's Registry.PROMETHEUS_CONTENT_TYPE).
const TEXT_FORMAT = 'text/plain; version=0.0.4; charset=utf-8';

export interface PrometheusMetricsOptions {
  /** Told once when the registry cannot be loaded. */
  logger?: Logger;
  /** Makes the registry. @default prom-client's, imported on first use */
  loadRegistry?: () => Promise<PrometheusRegistry>;
}

async function importRegistry(): Promise<PrometheusRegistry> {
  const { PrometheusRegistry } = await import('./prometheus-registry');
  return new PrometheusRegistry();
}

export class PrometheusMetrics implements Metrics {
  private registry?: PrometheusRegistry;
  private loading?: Promise<PrometheusRegistry>;
  /** Set once the registry failed to load: measurements are dropped from then on. */
  private unavailable = false;
  /** Measurements made before the registry was loaded, applied to it once it is. */
  private readonly waiting: ((registry: PrometheusRegistry) => void)[] = [];
  private readonly levels: ((metrics: Metrics) => Promise<void>)[] = [];

  readonly contentType = TEXT_FORMAT;

  constructor(private readonly options: PrometheusMetricsOptions = {}) {}

  count(name: MetricName, dimensions?: MetricDimensions, value = 1): void {
    this.measure((registry) => registry.count(name, dimensions, value));
  }

  timing(name: MetricName, ms: number, dimensions?: MetricDimensions): void {
    this.measure((registry) => registry.timing(name, ms, dimensions));
  }

  gauge(name: MetricName, value: number, dimensions?: MetricDimensions): void {
    this.measure((registry) => registry.gauge(name, value, dimensions));
  }

  /** Adds what sets the gauges, run at every scrape (levels are read when asked, never kept up per request). */
  onScrape(report: (metrics: Metrics) => Promise<void>): void {
    this.levels.push(report);
  }

  /** The text exposition: gauges emptied and set again (a pool a reload removed disappears), then everything. */
  async scrape(): Promise<string> {
    return (await this.measureLevels()).text();
  }

  /** The same, as prom-client's JSON: what a server's primary merges with its workers' (cluster-metrics.ts). */
  async snapshot(): Promise<MetricsSnapshot> {
    return (await this.measureLevels()).snapshot();
  }

  private measure(apply: (registry: PrometheusRegistry) => void): void {
    if (this.registry) {
      apply(this.registry);
      return;
    }
    if (this.unavailable) return;
    this.waiting.push(apply);
    // The failure is logged by load() and given to every scrape (each awaits the same promise).
    this.load().catch(() => {});
  }

  private load(): Promise<PrometheusRegistry> {
    this.loading ??= (this.options.loadRegistry ?? importRegistry)().then(
      (registry) => {
        for (const apply of this.waiting.splice(0)) apply(registry);
        this.registry = registry;
        return registry;
      },
      (error: unknown) => {
        this.unavailable = true;
        const dropped = this.waiting.splice(0).length;
        this.options.logger?.log('BACKGROUND_TASK_FAILED', {
          task: 'metrics registry load',
          error: String(error),
          dropped,
        });
        throw error;
      },
    );
    return this.loading;
  }

  private async measureLevels(): Promise<PrometheusRegistry> {
    const registry = await this.load();
    registry.resetGauges();
    await Promise.all(this.levels.map((report) => report(this)));
    return registry;
  }
}
