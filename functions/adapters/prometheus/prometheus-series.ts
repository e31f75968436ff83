/**
 * What each name of the Metrics port becomes on the Node server's `GET /metrics`: the Prometheus series,
 * named the Prometheus way with the `gridgate_` prefix. Plain data, so that naming them needs no
 * prom-client (prometheus-metrics.ts loads it with the first measurement).
 */
import type { MetricName } from '../../core/ports';

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
  BrowserStartLatency: {
    kind: 'histogram',
    name: 'gridgate_browser_start_seconds',
    help: 'Time from a launch to a driver-ready cloud browser, by pool and start (cold or warm)',
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
  TestResults: {
    kind: 'counter',
    name: 'gridgate_test_results_total',
    help: 'Ended sessions by the result their test gave (passed, failed, unknown), by pool',
  },
  ActiveSessions: { kind: 'gauge', name: 'gridgate_sessions_active', help: 'Slots in use, by pool' },
  PoolCapacity: { kind: 'gauge', name: 'gridgate_pool_capacity', help: 'Sessions a pool may hold at once' },
  QueueWaiting: {
    kind: 'gauge',
    name: 'gridgate_queue_waiting',
    help: 'New-session requests waiting for a slot each pool could give',
  },
};
