/**
 * The port the scheduled cleanup sweeps: a fleet of browsers gridgate started somewhere it cannot watch
 * them from one process (ECS tasks, EKS pods). It lists them, says what became of the ones a listing
 * missed, and stops them; the cleanup pass (use-cases/cleanup-pass.ts) decides, the same way for every
 * fleet, with core/orphan-decisions.ts.
 */
import type { Config } from './config';
import type { StopReason, TaskFacts, TaskFate, WarmStopReason } from './orphan-decisions';

/** One browser a fleet holds: an ECS task meant to run, an EKS pod not being deleted. */
export interface FleetBrowser extends TaskFacts {
  /** What session records keep as their handle: the bare task ID, the pod's name. */
  id: string;
  /** The pool it was started for, by its tag or label. */
  pool: string | undefined;
  /**
   * False for a browser that has exited but is still listed (a finished pod): its running record is
   * judged as one whose browser is gone, and the browser itself by its session like any other.
   */
  alive: boolean;
  /** The warm tag: set on browsers the cleanup started for a warm pool (ECS tasks only). */
  warm?: 'unclaimed' | 'claimed' | undefined;
}

/** Where a fleet lists in one call (an ECS cluster, an EKS cluster's namespace), and its pools. */
export interface FleetPlace {
  /** For reports: the cluster, or cluster/namespace. */
  name: string;
  pools: ReadonlySet<string>;
}

export interface BrowserFleet<B extends FleetBrowser = FleetBrowser, P extends FleetPlace = FleetPlace> {
  /** The places the config's pools of this fleet's kind use. */
  places(config: Config): P[];
  /** Every browser of gridgate's in the place that is meant to run. */
  list(place: P): Promise<B[]>;
  /** What became of these browsers (by ID) that the listing did not show alive. */
  fates(place: P, ids: string[]): Promise<Map<string, TaskFate>>;
  /**
   * Stops one browser; one already gone counts as stopped. `session`: whose browser it was, when it ran one
   * (a warm browser did not), so a fleet may keep what goes with it (an eks pod's log).
   */
  stop(
    place: P,
    id: string,
    reason: StopReason | WarmStopReason,
    session: { key: string; pool: string | undefined } | undefined,
  ): Promise<void>;
  /** Whether an error from this fleet's API says "later" (throttled, the server's own trouble). */
  isThrottled(error: unknown): boolean;
  /** The fleet's warm pool work for one pass, when it keeps browsers ahead of demand. */
  warmPass?(options: WarmPassOptions): FleetWarmPass<B>;
}

export interface WarmPassOptions {
  dryRun: boolean;
  graceMs: number;
  deadline: number | undefined;
}

/** Per pool with a warm pool (or leftovers of one): what the pass found and did. */
export interface WarmPoolReport {
  /** Idle browsers the pool should hold, from recent demand within [min, max]. */
  target: number;
  /** Registered idle browsers kept (including those registered this pass). */
  idle: number;
  /** Started but not ready yet. */
  starting: number;
  registered: number;
  /** Browsers started (or, in a dry run, that would have been). */
  started: number;
  stopped: Partial<Record<WarmStopReason, number>>;
  /** Why the top-up stopped short (throttled, no capacity, the deadline). */
  error?: string;
}

export type WarmJudgement =
  | { kind: 'session'; facts: TaskFacts }
  | { kind: 'stop'; reason: WarmStopReason }
  | { kind: 'keep' };

/** A fleet's warm pool during one cleanup pass, in the order the pass calls it. */
export interface FleetWarmPass<B extends FleetBrowser> {
  readonly report: Record<string, WarmPoolReport>;
  /** Reads the warm store, before anything is listed. */
  load(): Promise<void>;
  /** Judges one listed browser with the warm tag; registers it when it is ready to be claimed. */
  judge(browser: B): Promise<WarmJudgement>;
  /** Forgets the store's entries of these pools whose browser the listing no longer shows. */
  forgetGone(pools: Iterable<string>, listed: ReadonlyMap<string, B>): Promise<void>;
  /** Just before a warm browser is stopped: false when a router claimed it meanwhile. */
  mayStop(pool: string | undefined, id: string): Promise<boolean>;
  /** After a warm browser was stopped (or, in a dry run, would have been). */
  stopped(pool: string | undefined, reason: WarmStopReason): void;
  /** Starts browsers up to each warm pool's target; called only when every place was listed. */
  topUp(): Promise<void>;
}
