/**
 * Which head may end which session, the one rule for ending a session, the expiry sweep and the shutdown.
 * A local browser is a process of the head that created it: only that head can stop it, and another head's
 * record of it stops nothing here, where its handle (a process ID) may even name a browser of this head's.
 * A container is the same: it runs in the engine of its head's machine, its address is that machine's
 * loopback, and another head (on another machine, or with an engine of its own) can neither reach nor remove
 * it; its head stops it once it sees its record ended (stop-browsers-ended-elsewhere.ts). Browsers of every
 * other kind (ecs tasks, eks pods, hub sessions) are reachable from any head sharing the store, so any of them
 * may end such a session.
 */
import { type GridDeps, poolsNamed, traitsOf } from '../core/grid-deps';
import type { SessionEndReason, SessionRecord } from '../core/ports';

/** Whether the session's browser runs on the machine of the head that created it (its kind's trait). */
export function boundToItsHead(deps: GridDeps, session: Pick<SessionRecord, 'pool'>): boolean {
  const pool = poolsNamed(deps, session.pool)[0];
  return pool !== undefined && traitsOf(deps, pool).boundToItsHead;
}

/** Whether the session's browser runs on another head, which alone can stop it. */
export function runsOnAnotherHead(
  deps: GridDeps,
  { pool, head }: Pick<SessionRecord, 'pool' | 'head'>,
): boolean {
  return boundToItsHead(deps, { pool }) && head !== undefined && head !== deps.head;
}

/** What a head knows beyond its store to apply the rule. */
export interface HeadFacts {
  /** A store other heads share (DynamoDB): their sessions are in it too. */
  shared: boolean;
  /** Whether this head's launcher still runs the browser with this handle. */
  isRunning: (handle: string) => boolean;
  /**
   * Clock slack between heads: how long past its maximum age a local session of another head is left to
   * it, before it counts as headless.
   */
  staleSlotGraceMs: number;
}

/** Which records a head's sweeps may end, and which it knows to have lost their browser (ExpiryScope). */
export interface HeadSessions {
  /** The sessions whose browsers this head started and stops. */
  startedHere: (record: SessionRecord) => boolean;
  /**
   * The sessions this head's shutdown ends: with a shared store only those it started (others' ecs, eks and
   * hub sessions outlive it, other heads serve them); alone, every one.
   */
  endedAtShutdown: (record: SessionRecord) => boolean;
  /** The records this head's expiry sweep may end. */
  mine: (record: SessionRecord) => boolean;
  /** Why a record's browser is gone, when this head knows it is. */
  gone: (record: SessionRecord) => SessionEndReason | undefined;
}

export function headSessions(deps: GridDeps, facts: HeadFacts): HeadSessions {
  const local = (record: SessionRecord) => boundToItsHead(deps, record);
  const runsHere = (record: SessionRecord) => local(record) && facts.isRunning(record.handle);
  // A local session's browser runs where the head that created it runs: that head ends the record, also
  // once the browser is gone (a record of a head before records named theirs: while it runs here).
  const startedHere = (record: SessionRecord) =>
    local(record) && (record.head === undefined ? runsHere(record) : record.head === deps.head);
  // A head ends its own local sessions at their maximum age: one whose record is older by the clock slack
  // has lost its head (killed outright, or cut off from the store), and nobody else would ever end it.
  const headless = (record: SessionRecord) =>
    deps.clock.now() - record.createdAt >= record.maxAgeMs + facts.staleSlotGraceMs;
  // With a shared store, any head may end an ecs, eks or hub session, but a local one only its own head, or
  // any head once it is headless (its record ended and its slot freed; its browser is not stopped here).
  const mine = (record: SessionRecord) =>
    !facts.shared || !local(record) || startedHere(record) || headless(record);
  // The browser of a local session of ours that this launcher no longer runs is gone: its record was
  // left by a store that refused to end it, or that took a write the creation was told had failed. It
  // ends for the reason it was stopped for (a DELETE, a timeout, a failed creation); unknown: it exited.
  const gone = (record: SessionRecord): SessionEndReason | undefined =>
    local(record) && record.head === deps.head && !facts.isRunning(record.handle)
      ? (deps.ended.recall(record.key)?.reason ?? 'browser exited')
      : undefined;
  const endedAtShutdown = (record: SessionRecord) => !facts.shared || startedHere(record);
  return { startedHere, endedAtShutdown, mine, gone };
}
