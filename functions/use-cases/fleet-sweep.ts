/**
 * The cleanup's sweep of one browser fleet (ECS tasks, EKS pods), place by place: stops the browsers no
 * session needs, ends running records whose browser is gone, frees their slots, and counts what it did
 * into the pass's report. The decisions are core/orphan-decisions.ts's; this is the order they are made
 * and carried out in, the same for every fleet.
 *
 * It calls the SessionStore and the fleet itself rather than endSession: endSession needs GridDeps (a
 * signing secret, a slot queue nobody waits on here, a launcher), swallows a failed stop into a log, and
 * ends the record before stopping. Here an orphan often has no record at all, a dry run must decide
 * without acting, and a throttled stop must leave everything as it was for the next pass; so the browser
 * is stopped first and the store written only once the stop went through.
 */
import type { BrowserFleet, FleetBrowser, FleetPlace, FleetWarmPass } from '../core/browser-fleet';
import type { Config } from '../core/config';
import {
  type GoneReason,
  judgeRecord,
  judgeTask,
  type OrphanPolicy,
  type StopReason,
  type WarmStopReason,
} from '../core/orphan-decisions';
import type { Clock, Logger, SessionRecord, SessionStore } from '../core/ports';
import { type CleanupReport, type ClusterOutcome, countReaped } from './cleanup-report';

export interface SweepDeps {
  sessions: SessionStore;
  config: Config;
  logger: Logger;
  clock: Clock;
}

export interface SweepOptions {
  dryRun: boolean;
  policy: OrphanPolicy;
  /** Epoch ms after which no stop starts: the rest waits for the next pass. */
  deadline: number | undefined;
}

interface StopAction {
  kind: 'stop';
  reason: StopReason | WarmStopReason;
  /** A warm pool browser: counted in the warm report, not as an orphan. */
  warm?: boolean;
  id: string;
  key?: string;
  pool?: string;
  endSession: boolean;
}
type Action = StopAction | { kind: 'end'; reason: GoneReason; record: SessionRecord };

export class FleetSweep<B extends FleetBrowser, P extends FleetPlace> {
  private readonly warm: FleetWarmPass<B> | undefined;

  constructor(
    private readonly deps: SweepDeps,
    private readonly fleet: BrowserFleet<B, P>,
    private readonly options: SweepOptions,
    private readonly report: CleanupReport,
  ) {
    this.warm = fleet.warmPass?.({
      dryRun: options.dryRun,
      graceMs: options.policy.graceMs,
      deadline: options.deadline,
    });
  }

  async run(): Promise<void> {
    const places = this.fleet.places(this.deps.config);
    // Read before listing: a session created meanwhile has its browser listed and its record fetched by key.
    const running = await this.deps.sessions.running();
    // Also before listing: a warm browser registered meanwhile is listed, and left for the next pass as starting.
    await this.warm?.load();
    for (const place of places) {
      const outcome: ClusterOutcome = { cluster: place.name, tasks: 0, status: 'done' };
      this.report.clusters.push(outcome);
      try {
        // Only records of this place's pools: other pools' sessions are not ours to judge.
        await this.place(
          place,
          running.filter((record) => place.pools.has(record.pool)),
          outcome,
        );
      } catch (error) {
        // One place's trouble (throttling, a deleted cluster, a denied call) leaves the others to run.
        outcome.status = this.fleet.isThrottled(error) ? 'throttled' : 'failed';
        outcome.error = String(error);
      }
    }
    if (this.warm) {
      // After the stops, so browsers stopped this pass are not counted, and only if every place was seen:
      // a pool whose browsers could not be listed would look empty and be filled twice.
      if (this.report.clusters.every((outcome) => outcome.status === 'done')) await this.warm.topUp();
      this.report.warm = { ...this.report.warm, ...this.warm.report };
    }
  }

  private async place(place: P, records: SessionRecord[], outcome: ClusterOutcome): Promise<void> {
    const browsers = await this.fleet.list(place);
    outcome.tasks = browsers.length;
    const actions: Action[] = [];
    const byKey = new Map(records.map((record) => [record.key, record]));
    for (const listed of browsers) {
      let browser: B = listed;
      if (listed.warm !== undefined && this.warm) {
        const judged = await this.warm.judge(listed);
        if (judged.kind === 'keep') continue;
        if (judged.kind === 'stop') {
          actions.push({
            kind: 'stop',
            ...stopOf(listed),
            reason: judged.reason,
            warm: true,
            endSession: false,
          });
          continue;
        }
        // Claimed: judged by its session from here on, like any session's browser.
        browser = { ...listed, ...judged.facts };
      }
      const record = await this.recordOf(browser, byKey);
      const verdict = judgeTask(browser, record, this.options.policy, this.deps.clock.now());
      if (verdict.action === 'stop') {
        actions.push({
          kind: 'stop',
          ...stopOf(browser),
          reason: verdict.reason,
          endSession: verdict.endSession,
        });
      }
    }
    await this.warm?.forgetGone(place.pools, new Map(browsers.map((browser) => [browser.id, browser])));
    const alive = new Set(browsers.filter((browser) => browser.alive).map((browser) => browser.id));
    const unlisted = records.filter((record) => !alive.has(record.handle));
    if (unlisted.length > 0) {
      const fates = await this.fleet.fates(
        place,
        unlisted.map((record) => record.handle),
      );
      for (const record of unlisted) {
        const verdict = judgeRecord(
          record,
          fates.get(record.handle) ?? { state: 'missing' },
          this.deps.clock.now(),
        );
        if (verdict.action === 'end') actions.push({ kind: 'end', reason: verdict.reason, record });
        if (verdict.action === 'stop') {
          const { reason, endSession } = verdict;
          actions.push({
            kind: 'stop',
            id: record.handle,
            key: record.key,
            pool: record.pool,
            reason,
            endSession,
          });
        }
      }
    }
    await this.carryOut(place, actions, outcome);
  }

  /** The browser's session record: running (read up front) or fetched by key, ended ones included. */
  private async recordOf(
    browser: FleetBrowser,
    running: Map<string, SessionRecord>,
  ): Promise<SessionRecord | undefined> {
    if (browser.sessionKey === undefined) return undefined;
    return running.get(browser.sessionKey) ?? (await this.deps.sessions.get(browser.sessionKey));
  }

  private async carryOut(place: P, actions: Action[], outcome: ClusterOutcome): Promise<void> {
    // Records first: ending them needs no call to the fleet, so neither throttling nor the deadline holds them up.
    for (const action of actions) {
      if (action.kind === 'end') await this.endRecord(place, action.record, action.reason);
    }
    const stops = actions.filter((action): action is StopAction => action.kind === 'stop');
    for (const [index, stop] of stops.entries()) {
      if (this.options.deadline !== undefined && this.deps.clock.now() >= this.options.deadline) {
        this.report.deferred += stops.length - index;
        return;
      }
      // A warm browser claimed since the listing is a session's now: it stays (and its entry with it).
      if (stop.warm && !(await this.warm?.mayStop(stop.pool, stop.id))) continue;
      if (!this.options.dryRun) {
        try {
          const session = stop.key === undefined ? undefined : { key: stop.key, pool: stop.pool };
          await this.fleet.stop(place, stop.id, stop.reason, session);
        } catch (error) {
          if (!this.fleet.isThrottled(error)) throw error;
          // The fleet's client already retried with backoff: the rest of this place waits for the next pass.
          this.report.deferred += stops.length - index;
          outcome.status = 'throttled';
          outcome.error = String(error);
          return;
        }
      }
      if (stop.warm) {
        this.warm?.stopped(stop.pool, stop.reason as WarmStopReason);
        continue;
      }
      await this.afterStop(stop);
      countReaped(this.report, {
        cluster: place.name,
        reason: stop.reason as StopReason,
        task: stop.id,
        session: stop.key,
        pool: stop.pool,
      });
    }
  }

  /** Ends the stopped browser's running record if the verdict says so, and frees its slot (idempotent). */
  private async afterStop(action: StopAction): Promise<void> {
    if (this.options.dryRun || action.key === undefined) return;
    const now = this.deps.clock.now();
    // Only 'max age' ends a running record here; the other reasons had none running.
    if (action.endSession && action.reason === 'max age') {
      this.logEnded(await this.deps.sessions.end(action.key, 'max age', now), now);
    }
    // A launch that died half-way, or an end whose release was lost, still holds the key's slot.
    await this.deps.sessions.release(action.key);
  }

  private async endRecord(place: P, record: SessionRecord, reason: GoneReason) {
    if (!this.options.dryRun) {
      const now = this.deps.clock.now();
      const ended = await this.deps.sessions.end(record.key, reason, now);
      await this.deps.sessions.release(record.key);
      // Someone else (a DELETE, the router noticing the gone browser) ended it first: not ours to count.
      if (!ended) return;
      this.logEnded(ended, now);
    }
    countReaped(this.report, {
      cluster: place.name,
      reason,
      task: record.handle,
      session: record.key,
      pool: record.pool,
    });
  }

  /** The same per-session line endSession writes, so a session's story reads the same whoever ended it. */
  private logEnded(record: SessionRecord | undefined, now: number): void {
    if (!record?.endReason) return;
    this.deps.logger.log(record.endReason === 'max age' ? 'SESSION_TIMED_OUT' : 'SESSION_ENDED', {
      session: record.key,
      user: record.user,
      pool: record.pool,
      reason: record.endReason,
      durationMs: now - record.createdAt,
    });
  }
}

function stopOf(browser: FleetBrowser): { id: string; key?: string; pool?: string } {
  return { id: browser.id, key: browser.sessionKey, pool: browser.pool };
}
