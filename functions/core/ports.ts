/** The interfaces the core and the HTTP app depend on; adapters implement them. */
import type { Readable } from 'node:stream';
import type { Capabilities } from './capabilities';
import type { PoolConfig } from './config';
import type { CreationStage, LaunchStage } from './creation-stage';
import type { RecordingWish } from './recording-wish';
import type { SocketSessionProtocol } from './socket-session-request';
import type { TestMarks, TestResult } from './test-marks';

/** A new session's browser to start, in a pool of the launcher's own kind (`P`). */
export interface LaunchRequest<P extends PoolConfig = PoolConfig> {
  pool: P;
  /** gridgate's key of the session being created (its record and quota slot), for tags and idempotency. */
  key: string;
  /** Who asked, for tags. */
  user: string;
  /** The session's idle timeout, which a browser node can enforce itself. */
  idleTimeoutMs: number;
  /**
   * The longest the browser can be in use: the new-session timeout plus the session's maximum age
   * (core/browser-lifetime.ts). A launcher whose browsers can end themselves makes them end a grace after it.
   */
  inUseMs: number;
  /** The matched capabilities, gridgate's own options removed. */
  capabilities: Capabilities;
  /** The catalog's version that matched ("" when the config names none), for launchers that pass it on. */
  browserVersion?: string;
  /** Aborted when the client goes away or the new-session deadline passes. */
  signal: AbortSignal;
  /** Hears each stage the launcher enters, so people watching a long start see where it is. Never throws. */
  onStage?: (stage: LaunchStage) => void;
  /** Whether the session's video and driver log are recorded, and its test's name; none: nothing recorded. */
  recording?: RecordingWish;
}

// The creation stages live apart, in a file with no Node import, for the status page's browser-side code.
export type { CreationStage, LaunchStage };

/** What a cloud task's bill depends on, as it was placed: kept with the session for its estimated cost. */
export interface TaskBilling {
  /** Epoch ms Fargate bills from: the task's image pull began (a warm task's, before it was claimed). */
  billedFrom: number;
  /** The capacity provider the task ran on: FARGATE_SPOT or FARGATE. */
  capacity: 'spot' | 'on-demand';
  /**
   * Why a Spot-first pool's task runs on on-demand: RunTask found no Spot capacity, the account's Spot vCPU
   * quota was used up, or the Spot task stalled in PROVISIONING and was replaced. Absent: no fallback.
   */
  spotFallback?: 'no capacity' | 'quota' | 'stalled';
  vcpu: number;
  memoryGb: number;
  architecture: 'x86_64' | 'arm64';
}

export interface LaunchedBrowser {
  /** host:port of the browser's WebDriver endpoint. */
  address: string;
  /** What stop() needs, and what the session ID carries. */
  handle: string;
  /** The capabilities to send in the new-session request, with the pool's settings filled in. */
  capabilities: Capabilities;
  /**
   * Capabilities gridgate itself serves for this browser, added to the browser's new-session answer (a local
   * session's `se:downloadsEnabled`, which chromedriver knows nothing of).
   */
  served?: Capabilities;
  /** A cloud task's billing facts (ecs); none for browsers gridgate does not pay per task for. */
  billing?: TaskBilling;
}

/** A file a session's browser downloaded, as Selenium Grid 4 lists it (times in epoch ms). */
export interface DownloadedFile {
  name: string;
  creationTime: number;
  lastModifiedTime: number;
  size: number;
}

/** One downloaded file, and its bytes as they are or as a zip holding it, each read as it is sent. */
export interface DownloadedFileReader {
  file: DownloadedFile;
  bytes(): Readable;
  zipped(): Readable;
}

/**
 * Selenium Grid 4's file transfer (`/se/file`, `/se/files`) for browsers on gridgate's own machine, where
 * gridgate serves it itself; other pools' nodes serve it and gridgate passes it through. Calls for a browser
 * that is not running are `invalid session id`; refusals are W3C errors; nothing outlives the session.
 */
export interface FileTransfer {
  /** Unpacks an upload (a zip of one file, at most `maxBytes` unpacked) where the browser reads it; its path. */
  upload(handle: string, zip: Buffer, maxBytes: number): Promise<string>;
  /** The files the browser downloaded; `unsupported operation` for a session without managed downloads. */
  downloads(handle: string): Promise<DownloadedFile[]>;
  /** The downloaded file of this exact name. */
  download(handle: string, name: string): Promise<DownloadedFileReader>;
  /** Deletes every file the browser downloaded. */
  deleteDownloads(handle: string): Promise<void>;
}

/** Why and where a browser stops: a hub's session must be ended at the hub unless the client's DELETE did. */
export interface StopContext {
  /** The session's key: what a browser's kept log is named by (an eks pod's, copied before it is deleted). */
  key: string;
  pool: PoolConfig;
  reason: SessionEndReason;
  /** The browser's own session ID: what a hub's session is ended by. */
  upstreamId: string;
  /**
   * Why the session's video is not to be kept (its pool or client asked for failed sessions' only and this
   * one did not fail); absent: kept as recorded. A launcher that keeps videos itself deletes it instead.
   */
  videoNotKept?: string;
}

/**
 * Starts and stops browsers of one kind, typed for that kind's pools (`P`): each kind's runtime
 * (core/pool-runtime.ts) holds it, with the parts only some kinds have, and launcherOf hands it that kind's
 * pools only, so no launcher checks the kind.
 */
export interface Launcher<P extends PoolConfig = PoolConfig> {
  /** Starts a browser ready for one new-session request; on abort it stops what it started and rejects. */
  start(request: LaunchRequest<P>): Promise<LaunchedBrowser>;
  /**
   * Stops the browser and frees what it held; what nothing reaches any more (a local browser's folders) may
   * be freed after this resolves, and the launcher's own shutdown waits for it. Idempotent; never throws
   * for an unknown handle. The context is
   * required: a cloud browser is found by its pool (an ECS task by its cluster, a pod by its namespace), so
   * a stop without it could only log and leave the browser running.
   */
  stop(handle: string, context: StopContext): Promise<void>;
}

export type SessionEndReason =
  | 'deleted'
  | 'idle timeout'
  | 'max age'
  | 'browser exited'
  | 'server shutdown'
  /** The client went away while its session was being created. */
  | 'client gone'
  /** Starting the browser or its session failed half-way. */
  | 'creation failed'
  /** Its platform took the browser back (a Fargate Spot interruption). */
  | 'reclaimed';

export interface SessionRecord {
  key: string;
  user: string;
  pool: string;
  browserName: string;
  browserVersion: string;
  address: string;
  handle: string;
  upstreamId: string;
  createdAt: number;
  lastActivityAt: number;
  idleTimeoutMs: number;
  maxAgeMs: number;
  endedAt?: number;
  endReason?: SessionEndReason;
  /** The environment colour the session was asked with (its browser carries it where its pool says so). */
  color?: string;
  /** Commands proxied so far (a shared store may lag the truth by up to its touch interval). */
  commands?: number;
  /** The latest command counted, as method and path template without the session, e.g. `POST /element`. */
  lastCommand?: string;
  /** Its task's billing facts (ecs sessions): with endedAt and commands, what its estimated cost is made of. */
  billing?: TaskBilling;
  /** The test's name, when the client gave one (se:name, selenoid:options.name, …; core/test-grouping.ts). */
  name?: string;
  /** The protocol of a session that is one WebSocket (core/session-protocol.ts); none: WebDriver. */
  protocol?: SocketSessionProtocol;
  /** How the test went, as it said (se/event, an executor script, the status page's API); none: unknown. */
  result?: TestResult;
  /** The build and project the test belongs to, as its capabilities or scripts said. */
  build?: string;
  project?: string;
  /** Free labels (Moon's and Selenoid's `labels`, the clouds' tags), by name. */
  labels?: Record<string, string>;
  /**
   * The head (GridDeps.head) that created the session. A local session's browser runs where its head
   * runs, so of the heads sharing a store only that one can stop it and end its record, even once the
   * browser is gone.
   */
  head?: string;
  /**
   * What the session records, when it records anything: the store then keeps it, once ended, among the
   * recorded sessions (SessionRecords.recordedSessions) for as long as its recordings are kept.
   */
  recording?: SessionRecording;
}

/** What a session records, and how long its recordings are kept once it ended. */
export interface SessionRecording {
  video: boolean;
  log: boolean;
  /** The config's recording.retention when the session was created (a reload changes later sessions only). */
  retentionMs: number;
  /** Only failed sessions keep their video (core/recording-keep.ts); absent: every session keeps it. */
  keep?: 'failed';
}

/** How many ended sessions with recordings a store lists at most: the newest ones. */
export const RECORDED_LISTED_MAX = 1000;

/** What a new session asks of the quota: a slot in one pool, counted against the user's limit too. */
export interface SlotClaim {
  pool: string;
  /** The pool's capacity (`pools.{name}.maxSessions`). */
  poolLimit: number;
  user: string;
  /** Sessions the user may hold at once, over all pools; undefined means no per-user limit. */
  userLimit?: number;
}

/** A slot, or which limit refused it and how many slots its holder(s) held then. */
export type SlotAnswer = { ok: true } | { ok: false; full: 'user' | 'pool'; held: number };

/** Quota slots and session records. In memory locally; DynamoDB on AWS. */
/**
 * Where sessions are kept, along its three jobs: quota slots, session records, and marks of browsers
 * their platform took back. One adapter serves all three (in memory; DynamoDB on AWS).
 */
export type SessionStore = SlotLedger & SessionRecords & ReclaimMarks;

/** Every SessionStore call that answers later (all but touch): what a store in another process is asked. */
export const ASYNC_STORE_CALLS = [
  'acquire',
  'release',
  'inUse',
  'inUseByUser',
  'slots',
  'markStage',
  'add',
  'get',
  'running',
  'end',
  'mark',
  'recordedSessions',
  'markReclaimed',
  'reclaimed',
] as const satisfies readonly Exclude<keyof SessionStore, 'touch'>[];
export type AsyncStoreCall = (typeof ASYNC_STORE_CALLS)[number];

/** Quota slots: each session holds one of its pool's and one of its user's, taken and given back once. */
export interface SlotLedger {
  /**
   * In one atomic step, takes a slot if the user holds fewer than `userLimit` and the pool fewer than
   * `poolLimit` slots; when both are full the answer names the user's limit. Idempotent per key: a key
   * that holds a slot gets `ok` again and takes no second one.
   */
  acquire(key: string, claim: SlotClaim): Promise<SlotAnswer>;
  /** Gives the key's slot back (to its pool and its user); idempotent. */
  release(key: string): Promise<void>;
  /** Slots taken per pool. */
  inUse(): Promise<Record<string, number>>;
  /** Slots taken per user. */
  inUseByUser(): Promise<Record<string, number>>;
  /**
   * Every slot held now, with when it was taken: for the cleanup, which frees a slot whose session
   * never came (a router that died between taking the slot and recording its session).
   */
  slots(): Promise<HeldSlot[]>;
  /**
   * Notes where the creation of the session holding this key's slot is, for the status page. Stages only
   * move forward, so a late or repeated mark changes nothing; a key without a slot is ignored, never an error.
   */
  markStage(key: string, stage: CreationStage, at: number): Promise<void>;
}

/** Session records: what each running session is, for the cleanup, the status page and expiry. */
export interface SessionRecords {
  add(record: SessionRecord): Promise<void>;
  get(key: string): Promise<SessionRecord | undefined>;
  /** Running sessions (ended ones are kept for a while so later commands can say why). */
  running(): Promise<SessionRecord[]>;
  /**
   * Notes activity; cheap and synchronous so the command path can call it. With a command's method and
   * its path after /session/{id}, it also counts the command and keeps it as the last one (the store
   * builds the command's name only when it keeps it, never per call).
   */
  touch(key: string, at: number, method?: string, path?: string): void;
  /** Marks the session ended; returns the record only to the first caller, so a session ends once. */
  end(key: string, reason: SessionEndReason, at: number): Promise<SessionRecord | undefined>;
  /**
   * Merges what the test said of itself into the session's record (core/test-marks.ts withMarks), running or
   * ended while its ended record is kept (an ended session with recordings in the recorded list too); answers
   * the record as merged, or undefined for a key without a record. A running session's end keeps the marks
   * made before it, whichever head made them.
   */
  mark(key: string, marks: TestMarks): Promise<SessionRecord | undefined>;
  /**
   * Ended sessions that recorded something (their record's `recording`), latest end first: at most the
   * newest RECORDED_LISTED_MAX (a store may be made with fewer), each while its recordings are kept
   * (`recording.retentionMs` from its end). get() gives each of them back by its key as long, so whose
   * recordings they are is known after the ended record's usual hour.
   */
  recordedSessions(): Promise<SessionRecord[]>;
}

/** Browsers their platform took back, so a later command's error can say so. */
export interface ReclaimMarks {
  /**
   * Notes that the platform took a browser back (a Fargate Spot interruption), by its launcher handle,
   * so a later command's error can say so. Kept about as long as ended records.
   */
  markReclaimed(handle: string, reclaim: Reclaim): Promise<void>;
  /** The reclaim noted for this handle; asked on the error path only, never per command. */
  reclaimed(handle: string): Promise<Reclaim | undefined>;
}

export interface HeldSlot {
  key: string;
  pool: string;
  user: string;
  /** Epoch ms when it was taken. */
  acquiredAt: number;
  /** How far the creation of its session got (none marked yet: just taken). */
  stage?: CreationStage;
  /** Epoch ms when that stage began. */
  stageAt?: number;
}

/** A browser its platform took back. */
export interface Reclaim {
  at: number;
  /** Why, in the platform's words (e.g. ECS stopCode "SpotInterruption"). */
  reason: string;
}

/** Who may use the grid, by name and password (HTTP Basic auth); an htpasswd file in the Node server. */
export interface UserDirectory {
  /**
   * True when the password is this user's; false for a wrong password or an unknown user. `client` is
   * who asks (an address): a directory may refuse a client with too many checks under way, with a
   * WebDriverError carrying Retry-After, but never refuses a user by name.
   */
  verify(user: string, password: string, client: string): Promise<boolean>;
}

/** A closed set of event names, documented in docs/metrics.md (Logs). */
export type LogEvent =
  | 'ORPHANS_REMOVED'
  | 'SERVER_STARTED'
  | 'SERVER_STOPPING'
  | 'SERVER_STOPPED'
  | 'WORKER_STARTED'
  | 'WORKER_EXITED'
  | 'BROWSER_INSTALL'
  /** Local browsers share this machine's network: it cannot give each a namespace of its own (and why). */
  | 'ISOLATION_UNAVAILABLE'
  /** A local pool's Chromium is Debian's wrapper but what it gives the browser could not be worked out (and why). */
  | 'CHROMIUM_WRAPPER_KEPT'
  | 'SESSION_REQUESTED'
  | 'SESSION_QUEUED'
  | 'SESSION_CREATED'
  | 'SESSION_FAILED'
  | 'SESSION_DELETED'
  | 'SESSION_TIMED_OUT'
  | 'SESSION_ENDED'
  | 'SESSION_ID_REJECTED'
  | 'BROWSER_EXITED'
  | 'BROWSER_RECLAIMED'
  | 'BROWSER_STOP_FAILED'
  /** A Spot pool's new session moved to on-demand Fargate after its Spot task stalled in PROVISIONING. */
  | 'SPOT_FALLBACK'
  /** An eks pod's browser log could not be copied to the bucket before the pod was deleted. */
  | 'BROWSER_LOG_NOT_KEPT'
  /** The cleanup deleted videos ecs and eks sessions were not to keep (recording.keep: failed). */
  | 'UNKEPT_VIDEOS_DELETED'
  | 'UPSTREAM_ERROR'
  | 'REQUEST_FAILED'
  /** A client left in the middle of its request (its body cut off): nobody to answer. */
  | 'CLIENT_GONE'
  /** A client's request body went `timeouts.request` without a byte: answered 408 if it could be, and closed. */
  | 'REQUEST_TIMED_OUT'
  | 'BACKGROUND_TASK_FAILED'
  | 'USERS_LOADED'
  | 'USERS_RELOAD_FAILED'
  | 'CONFIG_RELOADED'
  | 'CONFIG_RELOAD_FAILED'
  | 'CONFIG_RESTART_NEEDED';

export interface Logger {
  log(event: LogEvent, fields?: Record<string, unknown>): void;
}

/** Low-cardinality labels only (never a session ID or a user): each combination is a separate series. */
export interface MetricDimensions {
  pool?: string;
  browser?: string;
  /** created, failed, refused, timed out… */
  outcome?: string;
  /** Where a new session failed or spent its time: queue, capacity, launch, pull, driver, session. */
  stage?: string;
  /** Why an orphan was reaped or a browser stopped. */
  reason?: string;
  /** An environment colour some pool is configured with (never a colour only a client named). */
  color?: string;
  /** How a cloud browser was had: `cold` (a task started and its image pulled) or `warm` (a warm task claimed). */
  start?: 'cold' | 'warm';
}

/** A closed set of metric names, documented in docs/metrics.md. */
export type MetricName =
  | 'SessionsRequested'
  | 'SessionsCreated'
  | 'SessionsFailed'
  /** 100 for a new-session request that failed, 0 for one that got a session: its average is the failure rate. */
  | 'SessionFailurePercent'
  | 'NewSessionLatency'
  | 'LaunchStageLatency'
  /** From a launch's start to a driver-ready browser, by pool and `start` (cold or warm). */
  | 'BrowserStartLatency'
  | 'QueueWait'
  | 'SpotFallbacks'
  | 'SpotInterruptions'
  | 'OrphansReaped'
  | 'UpstreamErrors'
  /** Commands a session sent, counted once when it ends (per session, never a line per command). */
  | 'Commands'
  /** A cloud session's estimated cost in US dollars, once when it ends (core/session-cost.ts). */
  | 'SessionCost'
  /** Ended sessions by their test's result (`outcome`: passed, failed, unknown), once when each ends. */
  | 'TestResults'
  /** Levels per pool, measured when asked (each cleanup pass; each Prometheus scrape), never per request. */
  | 'ActiveSessions'
  | 'PoolCapacity'
  | 'QueueWaiting';

/** Counters, timings and gauges; CloudWatch EMF in Lambda and the cleanup, Prometheus in the Node server. */
export interface Metrics {
  count(name: MetricName, dimensions?: MetricDimensions, value?: number): void;
  /** A duration in milliseconds. */
  timing(name: MetricName, ms: number, dimensions?: MetricDimensions): void;
  /** A level at this moment (e.g. active sessions). */
  gauge(name: MetricName, value: number, dimensions?: MetricDimensions): void;
}

export const noMetrics: Metrics = { count() {}, timing() {}, gauge() {} };

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
