/**
 * One pass of the scheduled cleanup (DESIGN invariant 4's backstop): sweeps every browser fleet the
 * grid runs (fleet-sweep.ts), frees quota slots nobody holds, then reports what it reaped by reason, as
 * one ORPHANS_REMOVED line and the OrphansReaped metric, and the pools' levels.
 */
import type { BrowserFleet } from '../core/browser-fleet';
import type { Config } from '../core/config';
import { staleSlots } from '../core/free-stale-slots';
import type { OrphanPolicy } from '../core/orphan-decisions';
import { reportPoolGauges } from '../core/pool-gauges';
import type { Clock, Logger, Metrics, SessionStore } from '../core/ports';
import { type CleanupReport, countReaped, emptyReport } from './cleanup-report';
import { FleetSweep } from './fleet-sweep';

const DEFAULT_GRACE_MS = 60_000;
// The log line lists at most this many reaped browsers and records; the counts are always whole.
const LOGGED_ITEMS = 100;

export interface CleanupPassDeps {
  sessions: SessionStore;
  config: Config;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
}

export interface CleanupPassOptions {
  /** Decide and report only: no stops, no store writes, no metrics. */
  dryRun?: boolean;
  /** Slack on deadlines read from browsers' tags (see OrphanPolicy.graceMs). */
  graceMs?: number;
  /** Epoch ms after which no stop starts (the Lambda's own deadline): the rest waits for the next pass. */
  deadline?: number;
}

export async function runCleanupPass(
  deps: CleanupPassDeps,
  fleets: readonly BrowserFleet[],
  options: CleanupPassOptions = {},
): Promise<CleanupReport> {
  const dryRun = options.dryRun ?? false;
  const policy: OrphanPolicy = {
    newSessionMs: deps.config.timeouts.newSession,
    maxAgeMs: deps.config.timeouts.maxAge,
    graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
  };
  const report = emptyReport(dryRun);
  for (const fleet of fleets) {
    await new FleetSweep(deps, fleet, { dryRun, policy, deadline: options.deadline }, report).run();
  }
  // After the sweeps, which end the records of gone browsers, so their slots are freed the same pass.
  await freeStaleSlots(deps, policy, report);
  deps.logger.log('ORPHANS_REMOVED', {
    dryRun: report.dryRun,
    total: report.total,
    reaped: report.reaped,
    deferred: report.deferred,
    clusters: report.clusters,
    ...(report.warm ? { warm: report.warm } : {}),
    items: report.items.slice(0, LOGGED_ITEMS),
  });
  if (!report.dryRun) {
    for (const [reason, count] of Object.entries(report.reaped)) {
      deps.metrics.count('OrphansReaped', { reason }, count);
    }
    // Sessions in use and capacity per pool, every pool of the config, once a pass: the one place that
    // counts them without adding a read to any request (the queue is a router's own, so not known here).
    reportPoolGauges(deps.metrics, Object.values(deps.config.pools), { inUse: await deps.sessions.inUse() });
  }
  return report;
}

/** Frees slots no running session holds, past any launch's length (core/free-stale-slots.ts). */
async function freeStaleSlots(deps: CleanupPassDeps, policy: OrphanPolicy, report: CleanupReport) {
  for (const slot of await staleSlots(deps.sessions, policy, deps.clock.now())) {
    if (!report.dryRun) await deps.sessions.release(slot.key);
    countReaped(report, { cluster: '', reason: 'stale slot', task: '', session: slot.key, pool: slot.pool });
  }
}
