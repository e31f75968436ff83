/**
 * What one new-session request tells the operators: its SESSION_REQUESTED, SESSION_FAILED and
 * SESSION_CREATED lines, and the SessionsRequested/Failed/Created counts, failure percentage, queue wait
 * and latency metrics, so the steps of createSession read without them.
 */
import type { GridDeps } from '../core/grid-deps';
import { noMetrics } from '../core/ports';

export interface CreationFacts {
  key: string;
  user: string;
  browserName: string;
  browserVersion: string;
  /** The colour the request carries, for the log lines. */
  color?: string;
  /** The colour as a metric dimension: only a configured one (a colour only a client named is not a dimension). */
  metricColor?: string;
}

export class CreationReport {
  private readonly started: number;
  private readonly colorDimension: { color?: string };

  constructor(
    private readonly deps: GridDeps,
    private readonly facts: CreationFacts,
  ) {
    this.started = deps.clock.now();
    this.colorDimension = facts.metricColor ? { color: facts.metricColor } : {};
  }

  private get metrics() {
    return this.deps.metrics ?? noMetrics;
  }

  private get colorField() {
    return this.facts.color ? { color: this.facts.color } : {};
  }

  /** How long since the request came in. */
  elapsedMs(): number {
    return this.deps.clock.now() - this.started;
  }

  requested(): void {
    const { key, user, browserName, browserVersion } = this.facts;
    this.deps.logger.log('SESSION_REQUESTED', {
      session: key,
      user,
      browserName,
      browserVersion,
      ...this.colorField,
    });
    this.metrics.count('SessionsRequested', { browser: browserName, ...this.colorDimension });
  }

  /** A slot in this pool was taken after waiting this long. */
  slotTaken(pool: string, waitedMs: number): void {
    this.metrics.timing('QueueWait', waitedMs, { pool });
  }

  /** The request failed at this stage (the `stage` metric dimension); the metrics only. */
  failed(stage: string, pool?: string): void {
    const { browserName } = this.facts;
    this.metrics.count('SessionsFailed', { browser: browserName, stage, pool, ...this.colorDimension });
    this.metrics.gauge('SessionFailurePercent', 100);
    this.metrics.timing('NewSessionLatency', this.elapsedMs(), {
      browser: browserName,
      outcome: 'failed',
      ...this.colorDimension,
    });
  }

  /** The SESSION_FAILED line, with why. */
  logFailure(reason: string): void {
    this.deps.logger.log('SESSION_FAILED', { session: this.facts.key, user: this.facts.user, reason });
  }

  created(pool: string, waitedMs: number): void {
    const ms = this.elapsedMs();
    const { key, user, browserName } = this.facts;
    this.deps.logger.log('SESSION_CREATED', { session: key, user, pool, ms, waitedMs, ...this.colorField });
    const dimensions = { pool, browser: browserName, ...this.colorDimension };
    this.metrics.count('SessionsCreated', dimensions);
    this.metrics.gauge('SessionFailurePercent', 0);
    this.metrics.timing('NewSessionLatency', ms, { ...dimensions, outcome: 'created' });
  }
}
