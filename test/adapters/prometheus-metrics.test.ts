/** PrometheusMetrics: the same port calls as EMF, as Prometheus series; its text checked by promtool. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EMF_UNITS, EmfMetrics } from '../../functions/adapters/aws/emf-metrics';
import { PrometheusMetrics } from '../../functions/adapters/prometheus/prometheus-metrics';
import { PROMETHEUS_SERIES } from '../../functions/adapters/prometheus/prometheus-series';
import type { LogEvent, Logger, MetricName, Metrics } from '../../functions/core/ports';
import { useEmfOutput } from '../support/emf-output';

/** Each metric name through the port method its kind of measurement uses, as gridgate calls them. */
function measureEverything(metrics: Metrics): void {
  for (const name of Object.keys(EMF_UNITS) as MetricName[]) {
    const unit = EMF_UNITS[name];
    if (unit === 'Milliseconds') metrics.timing(name, 1500, { pool: 'local', stage: 'launch' });
    else if (name === 'SessionFailurePercent') metrics.gauge(name, 100);
    else if (['ActiveSessions', 'PoolCapacity', 'QueueWaiting'].includes(name))
      metrics.gauge(name, 3, { pool: 'local' });
    else metrics.count(name, { pool: 'local' });
  }
}

/** The metric families a text exposition declares (`# TYPE name kind`). */
function families(text: string): Map<string, string> {
  return new Map(
    [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, kind]) => [name as string, kind as string]),
  );
}

function promtoolCheckMetrics(text: string): string {
  // promtool exits non-zero on a malformed exposition and prints lint problems either way.
  return execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', stdio: 'pipe' });
}

describe('PrometheusMetrics', () => {
  const emfRecords = useEmfOutput();

  it('names the same set of metrics as EMF, fed by the same calls', async () => {
    expect(Object.keys(PROMETHEUS_SERIES).sort()).toEqual(Object.keys(EMF_UNITS).sort());
    measureEverything(new EmfMetrics({ service: 'router' }));
    const emfNames = emfRecords().flatMap((record) =>
      record._aws.CloudWatchMetrics.flatMap((directive) => directive.Metrics.map((metric) => metric.Name)),
    );
    const prometheus = new PrometheusMetrics();
    // Gauges are levels set at each scrape; the counts and timings go in with them, once.
    prometheus.onScrape(async (metrics) => measureEverything(metrics));
    const declared = families(await prometheus.scrape());
    const scraped = new Set(
      (await prometheus.snapshot()).filter((family) => family.values.length > 0).map((family) => family.name),
    );
    expect(emfNames.sort()).toEqual(Object.keys(EMF_UNITS).sort());
    for (const name of emfNames as MetricName[]) {
      const series = PROMETHEUS_SERIES[name];
      if (series.kind === 'derived') {
        // A query over other series stands in for it: those series are there.
        for (const used of series.query.match(/gridgate_\w+/g) ?? []) expect(scraped).toContain(used);
        continue;
      }
      expect(scraped, name).toContain(series.name);
      expect(declared.get(series.name), name).toBe(series.kind);
    }
    // Only SessionFailurePercent is left to a query.
    expect(
      Object.entries(PROMETHEUS_SERIES)
        .filter(([, s]) => s.kind === 'derived')
        .map(([n]) => n),
    ).toEqual(['SessionFailurePercent']);
  });

  it('names every series the Prometheus way: gridgate_ prefix, counters ending in _total, times in seconds', () => {
    for (const series of Object.values(PROMETHEUS_SERIES)) {
      if (series.kind === 'derived') continue;
      expect(series.name).toMatch(/^gridgate_[a-z_]+$/);
      if (series.kind === 'counter') expect(series.name).toMatch(/_total$/);
      if (series.kind === 'histogram') expect(series.name).toMatch(/_seconds$/);
    }
  });

  it('turns milliseconds into seconds and leaves out labels without a value', async () => {
    const metrics = new PrometheusMetrics();
    metrics.timing('NewSessionLatency', 2500, { pool: 'fargate', outcome: 'created', color: undefined });
    metrics.count('SessionsFailed', { browser: 'chrome', stage: 'queue', pool: undefined });
    const text = await metrics.scrape();
    expect(text).toContain('gridgate_new_session_seconds_sum{pool="fargate",outcome="created"} 2.5');
    expect(text).toContain('gridgate_new_session_seconds_bucket{le="5",pool="fargate",outcome="created"} 1');
    expect(text).toContain('gridgate_new_session_seconds_bucket{le="1",pool="fargate",outcome="created"} 0');
    expect(text).toContain('gridgate_sessions_failed_total{browser="chrome",stage="queue"} 1');
  });

  it('sets the gauges afresh at every scrape, so a pool that is gone disappears', async () => {
    const metrics = new PrometheusMetrics();
    let pools = ['a', 'b'];
    metrics.onScrape(async (into) => {
      for (const pool of pools) into.gauge('ActiveSessions', 1, { pool });
    });
    expect(await metrics.scrape()).toContain('gridgate_sessions_active{pool="b"} 1');
    pools = ['a'];
    const text = await metrics.scrape();
    expect(text).toContain('gridgate_sessions_active{pool="a"} 1');
    expect(text).not.toContain('pool="b"');
  });

  it('includes the default process metrics and passes promtool check metrics', async () => {
    const metrics = new PrometheusMetrics();
    metrics.onScrape(async (into) => measureEverything(into));
    const text = await metrics.scrape();
    expect(families(text).get('process_cpu_seconds_total')).toBe('counter');
    expect(families(text).get('nodejs_active_handles')).toBe('gauge');
    expect(families(text).get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(promtoolCheckMetrics(text)).toBe('');
  });

  it('keeps nothing once the registry cannot be loaded: says so once, and every scrape gives the reason', async () => {
    const lines: { event: LogEvent; fields?: Record<string, unknown> }[] = [];
    const logger: Logger = { log: (event, fields) => lines.push({ event, fields }) };
    const metrics = new PrometheusMetrics({
      logger,
      loadRegistry: () => Promise.reject(new Error('Cannot find module prom-client')),
    });
    // What waits for the registry, read from outside: this test is about that queue's bound.
    const waiting = () => (metrics as unknown as { waiting: unknown[] }).waiting.length;
    metrics.count('SessionsCreated', { pool: 'local' });
    metrics.timing('NewSessionLatency', 1500);
    expect(waiting()).toBe(2);
    await expect(metrics.scrape()).rejects.toThrow('Cannot find module prom-client');
    for (let i = 0; i < 10_000; i++) metrics.count('SessionsCreated', { pool: 'local' });
    expect(waiting()).toBe(0);
    await expect(metrics.snapshot()).rejects.toThrow('Cannot find module prom-client');
    expect(lines).toEqual([
      {
        event: 'BACKGROUND_TASK_FAILED',
        fields: { task: 'metrics registry load', error: 'Error: Cannot find module prom-client', dropped: 2 },
      },
    ]);
  });
});
