/**
 * GET /metrics of a server with worker processes: the primary's series (sessions, queue, pools) and
 * every worker's (upstream errors, its process) merged into one exposition by prom-client's aggregator:
 * counters and histograms summed, process gauges by each one's own rule (start time left out, the
 * version once, event-loop lag averaged), so one scrape shows the whole server.
 */

import type { MetricsSnapshot, PrometheusMetrics } from '../../adapters/prometheus/prometheus-metrics';
import type { MetricsPage } from '../../http/create-app';

export class ClusterMetricsPage implements MetricsPage {
  constructor(
    private readonly own: PrometheusMetrics,
    /** The workers' snapshots; a worker that cannot answer in time is left out of that scrape. */
    private readonly workers: () => Promise<MetricsSnapshot[]>,
  ) {}

  get contentType(): string {
    return this.own.contentType;
  }

  async scrape(): Promise<string> {
    // prom-client is loaded with the first scrape or measurement (prometheus-metrics.ts), not at start.
    const [own, workers, { aggregatedText }] = await Promise.all([
      this.own.snapshot(),
      this.workers(),
      import('../../adapters/prometheus/prometheus-registry'),
    ]);
    return aggregatedText([own, ...workers]);
  }
}
