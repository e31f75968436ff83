/** What one pass of the scheduled cleanup did, as its ORPHANS_REMOVED line and the Lambda's answer report it. */
import type { WarmPoolReport } from '../core/browser-fleet';
import type { OrphanReason } from '../core/orphan-decisions';

/** One browser stopped or record ended (or, in a dry run, that would be). */
export interface ReapedItem {
  /** The place: an ECS cluster, an EKS cluster/namespace; empty for a stale slot. */
  cluster: string;
  reason: OrphanReason;
  /** The browser's ID (bare task ID, pod name). */
  task: string;
  session?: string;
  pool?: string;
}

export interface ClusterOutcome {
  cluster: string;
  /** gridgate's browsers found meant to run. */
  tasks: number;
  /** done: the pass went through; throttled: the fleet's API throttled it, the rest waits for the next pass. */
  status: 'done' | 'throttled' | 'failed';
  error?: string;
}

export interface CleanupReport {
  dryRun: boolean;
  reaped: Partial<Record<OrphanReason, number>>;
  total: number;
  items: ReapedItem[];
  clusters: ClusterOutcome[];
  /** Decided, but left for the next pass: the fleet's API throttled the stops or the deadline came. */
  deferred: number;
  /** Per pool with a warm pool (or leftovers of one): what the pass found and did. */
  warm?: Record<string, WarmPoolReport>;
}

export function emptyReport(dryRun: boolean): CleanupReport {
  return { dryRun, reaped: {}, total: 0, items: [], clusters: [], deferred: 0 };
}

export function countReaped(report: CleanupReport, item: ReapedItem): void {
  report.reaped[item.reason] = (report.reaped[item.reason] ?? 0) + 1;
  report.total++;
  report.items.push(item);
}
