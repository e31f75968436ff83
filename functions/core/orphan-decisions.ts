/**
 * What the scheduled cleanup does with each browser task and each session record it finds: the backstop
 * of DESIGN invariant 4 ("nothing leaks"), as pure decisions over facts an adapter gathered.
 */
import type { HeldSlot, SessionRecord } from './ports';

/** Why the cleanup stopped a task. */
export type StopReason =
  /** The task outlived any session it could hold, or its session its maximum age. */
  | 'max age'
  /** No session record appeared within the new-session timeout: its creation died half-way. */
  | 'no session'
  /** Its session ended (deleted, timed out…) but the task still runs. */
  | 'session ended';

/** Why the cleanup ended a running record whose task was already gone. */
export type GoneReason =
  /** The task stopped or is gone. */
  | 'browser exited'
  /** Fargate Spot took the task back. */
  | 'reclaimed';

/** Why the cleanup stopped a task or ended a record, or freed a slot; the `reason` of the OrphansReaped metric. */
export type OrphanReason = StopReason | GoneReason | 'stale slot';

export interface OrphanPolicy {
  /** `timeouts.newSession`: the longest a launch may go without a session record. */
  newSessionMs: number;
  /** `timeouts.maxAge`: no session lives longer (a client may ask for less, never more). */
  maxAgeMs: number;
  /**
   * Slack on deadlines read from task tags: the launching router's own cleanup gets to act first, and
   * the router's and ECS's clocks may differ by a little.
   */
  graceMs: number;
}

/**
 * Whether a quota slot is held for nothing: no running session has its key, and it was taken longer
 * ago than any launch may last (the queue is waited before the slot is taken). Its router died between
 * taking it and recording the session, or between ending the session and freeing it.
 */
export function isStaleSlot(
  slot: HeldSlot,
  running: ReadonlySet<string>,
  policy: Pick<OrphanPolicy, 'newSessionMs' | 'graceMs'>,
  now: number,
): boolean {
  return !running.has(slot.key) && now - slot.acquiredAt > policy.newSessionMs + policy.graceMs;
}

/** What the cleanup knows of one task that is meant to run (ListTasks desiredStatus RUNNING). */
export interface TaskFacts {
  /** When its launch began: the created-at tag, else ECS's createdAt; undefined when neither is known. */
  launchedAt: number | undefined;
  /** The session key tag; undefined on a task gridgate's launcher did not tag (but that carries startedBy). */
  sessionKey: string | undefined;
}

export type TaskVerdict =
  | { action: 'keep'; why: 'live session' | 'being created' | 'untagged' | 'age unknown' }
  /** Stop the task; with `endSession`, also end its running record (then free its slot). */
  | { action: 'stop'; reason: StopReason; endSession: boolean };

/**
 * Judges a task by its session's record (undefined: none was found; `endedAt` set: it ended). A task
 * stops when its session ended, when no record appeared within the new-session timeout, or when it
 * outlived the longest session it could hold; a live session within its maximum age is never touched.
 */
export function judgeTask(
  task: TaskFacts,
  record: SessionRecord | undefined,
  policy: OrphanPolicy,
  now: number,
): TaskVerdict {
  if (record?.endedAt !== undefined) return { action: 'stop', reason: 'session ended', endSession: false };
  if (record && sessionPastMaxAge(record, now))
    return { action: 'stop', reason: 'max age', endSession: true };
  if (task.launchedAt === undefined) return { action: 'keep', why: record ? 'live session' : 'age unknown' };
  const age = now - task.launchedAt;
  // A session starts at most newSession after its launch and lives at most maxAge: nothing older is in use.
  if (age > policy.newSessionMs + policy.maxAgeMs + policy.graceMs) {
    return { action: 'stop', reason: 'max age', endSession: record !== undefined };
  }
  if (record) return { action: 'keep', why: 'live session' };
  // A task with gridgate's startedBy but not its tags (started by hand, or by an older launcher) cannot
  // be matched to a record, so only the age bound above applies to it.
  if (task.sessionKey === undefined) return { action: 'keep', why: 'untagged' };
  if (age > policy.newSessionMs + policy.graceMs) {
    return { action: 'stop', reason: 'no session', endSession: false };
  }
  return { action: 'keep', why: 'being created' };
}

/** What became of a running record's task that ListTasks did not return, asked of DescribeTasks. */
export type TaskFate =
  /** Still meant to run: ListTasks is eventually consistent, or the task started after the listing. */
  | { state: 'running' }
  /** Stopped or stopping, with ECS's stopCode (e.g. "SpotInterruption", "EssentialContainerExited"). */
  | { state: 'stopped'; stopCode: string | undefined }
  /** ECS no longer knows it (stopped tasks are described for about an hour only). */
  | { state: 'missing' };

export type RecordVerdict =
  | { action: 'keep' }
  /** End the record and free its slot; the browser is already gone. */
  | { action: 'end'; reason: GoneReason }
  /** Stop the task and end the record (then free its slot). */
  | { action: 'stop'; reason: 'max age'; endSession: true };

/** Judges a running record whose task the listing missed, by what became of that task. */
export function judgeRecord(record: SessionRecord, fate: TaskFate, now: number): RecordVerdict {
  if (fate.state === 'running') {
    return sessionPastMaxAge(record, now)
      ? { action: 'stop', reason: 'max age', endSession: true }
      : { action: 'keep' };
  }
  if (fate.state === 'stopped' && isSpotReclaim(fate.stopCode)) return { action: 'end', reason: 'reclaimed' };
  return { action: 'end', reason: 'browser exited' };
}

/** The router refuses commands from this moment (verifySession), so no grace: the session is over. */
function sessionPastMaxAge(record: SessionRecord, now: number): boolean {
  return now - record.createdAt >= record.maxAgeMs;
}

/**
 * ECS stop codes of a task its platform took back: a Fargate Spot interruption (the 2-minute notice,
 * aws-constraints 5.6), and TerminationNotice, the enum's other notice of the same kind.
 */
const SPOT_STOP_CODES: ReadonlySet<string> = new Set(['SpotInterruption', 'TerminationNotice']);

export function isSpotReclaim(stopCode: string | undefined): boolean {
  return stopCode !== undefined && SPOT_STOP_CODES.has(stopCode);
}

/**
 * Why the cleanup stopped a warm pool task. Not orphans (nothing leaked, no session lost), so they are
 * reported apart from OrphansReaped and its alarm.
 */
export type WarmStopReason =
  /** Idle past the pool's idle TTL, or the pool keeps no warm tasks any more. */
  | 'warm expired'
  /** Not registered within the new-session timeout: it never became RUNNING and driver-ready. */
  | 'warm never ready';

export interface WarmPolicy {
  /** The pool's `warm.idleTtl`; undefined when the pool keeps no warm tasks (absent, or max 0). */
  idleTtlMs: number | undefined;
  /** How long a warm task may take to become ready: the new-session timeout plus the grace. */
  startMs: number;
}

/** A listed task with the warm tag, and its entry in the warm store (undefined: none). */
export interface WarmTaskFacts extends TaskFacts {
  warm: 'unclaimed' | 'claimed';
}

/** The warm store's view of one task, as far as the decision needs it. */
export interface WarmEntryFacts {
  state: 'idle' | 'claimed';
  readyAt: number;
  session?: string;
  claimedAt?: number;
}

export type WarmVerdict =
  | { action: 'keep'; why: 'idle' }
  /** Not registered yet and still young: register it if RUNNING and driver-ready, else it is starting. */
  | { action: 'register' }
  | { action: 'stop'; reason: WarmStopReason }
  /** A session claimed it: judge it with judgeTask, by these facts, like any session's task. */
  | { action: 'session'; facts: TaskFacts };

/**
 * Judges a warm pool task. An idle one is never an orphan within its TTL; past it, it stops. One without a
 * store entry is starting until the new-session timeout (plus grace), then stops. A claimed one (by its tag,
 * or by its entry while the claiming router has not tagged it yet) belongs to a session from the claim on.
 */
export function judgeWarmTask(
  task: WarmTaskFacts,
  entry: WarmEntryFacts | undefined,
  policy: WarmPolicy,
  now: number,
): WarmVerdict {
  if (task.warm === 'claimed') return { action: 'session', facts: task };
  if (entry?.state === 'claimed') {
    return { action: 'session', facts: { launchedAt: entry.claimedAt, sessionKey: entry.session } };
  }
  if (policy.idleTtlMs === undefined) return { action: 'stop', reason: 'warm expired' };
  if (entry) {
    return now - entry.readyAt > policy.idleTtlMs
      ? { action: 'stop', reason: 'warm expired' }
      : { action: 'keep', why: 'idle' };
  }
  if (task.launchedAt === undefined || now - task.launchedAt > policy.startMs) {
    return { action: 'stop', reason: 'warm never ready' };
  }
  return { action: 'register' };
}
