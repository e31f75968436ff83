/**
 * The JSON the status page's scripts read (ui-data.ts, ui-recordings.ts and recent-failures.ts make it;
 * page-scripts/ read it): types only, with no import of Node, so the browser-side code is checked against
 * what the server sends under its own tsconfig.
 */
import type { CreationStage } from '../../core/creation-stage';
import type { RecordedSession } from '../../core/recorded-session';
import type { TestResult } from '../../core/test-marks';

/** Who is looking at the page. */
export interface Viewer {
  user: string;
  /** Sees and may end every user's sessions. */
  admin: boolean;
}

export interface PoolView {
  name: string;
  kind: string;
  region?: string;
  color?: string;
  capacity: number;
  inUse: number;
  /** New-session requests waiting that this pool could serve. */
  queued: number;
  /**
   * Browsers started ahead of demand, ready for a new session: a local pool's warm browsers, an ecs pool's
   * idle warm tasks; 0 for kinds that keep none. Left out when the count could not be read (shown blank).
   */
  warm?: number;
}

export interface SessionView {
  key: string;
  user: string;
  browserName: string;
  browserVersion: string;
  pool: string;
  /** The environment colour it was asked with (else its pool's). */
  color?: string;
  state: 'running' | 'ended';
  createdAt: number;
  ageMs: number;
  /** Since the last command; for an ended session, between its last command and its end. */
  idleMs: number;
  idleTimeoutMs: number;
  maxAgeMs: number;
  lastActivityAt: number;
  endedAt?: number;
  endReason?: string;
  /** Commands proxied so far (a shared store's count may lag by its touch interval). */
  commands: number;
  /** The latest one, e.g. `POST /element/{id}/click`. */
  lastCommand?: string;
  /** The test's name, when the client gave one (se:name, selenoid:options.name). */
  name?: string;
  /** How its client speaks to the browser: WebDriver, or one WebSocket of CDP or Playwright's protocol. */
  protocol: 'webdriver' | 'cdp' | 'playwright';
  /** How its test went, as the test said (se/event, an executor script, this page's API); none: unknown. */
  result?: TestResult;
  build?: string;
  project?: string;
  labels?: Record<string, string>;
  /**
   * What a cloud session cost (core/session-cost.ts): so far while it runs, in all once it ended; none
   * for local and hub sessions, whose browsers are not billed per session.
   */
  cost?: { dollars: number; billedSeconds: number; capacity: 'spot' | 'on-demand'; final: boolean };
}

export interface SessionEvent {
  at: number;
  what: string;
}

export interface SessionDetail extends SessionView {
  poolKind?: string;
  /** What the record tells of the session's life, oldest first; future deadlines included. */
  events: SessionEvent[];
  /** A live VNC view through gridgate (its noVNC page's password); none: the page shows screenshots. */
  vnc?: { password: string };
  /** An ended session's files and why its video is missing, as the recordings list has them; none: nothing kept. */
  recordings?: SessionRecordings;
}

/** Where an ended session's files are (relative URLs), and why its video was not kept. */
export type SessionRecordings = Pick<
  RecordingView,
  'videoUrl' | 'logUrl' | 'consoleUrl' | 'harUrl' | 'screenshotUrl' | 'videoNotKept'
>;

/** What every page shows at its top. */
export interface PageHeader {
  version: string;
  uptime: string;
  now: number;
  viewer: Viewer;
}

/** A new session whose slot is taken but whose browser is not ready yet (launching, pulling, waiting for the driver). */
export interface StartingView {
  key: string;
  user: string;
  pool: string;
  /** Since the slot was taken. */
  ageMs: number;
  /** How far its creation got; none yet: the slot was just taken. */
  stage?: CreationStage;
  /** Since that stage began. */
  stageMs?: number;
}

export interface Overview extends PageHeader {
  pools: PoolView[];
  sessions: SessionView[];
  starting: StartingView[];
  failures: SessionFailure[];
}

/** A new session that failed lately, as the page lists it. */
export interface SessionFailure {
  at: number;
  user: string;
  /** gridgate's key of the session that was not created. */
  session: string;
  reason: string;
}

/** One ended session as the page shows it, with where its files are (relative, as every URL on the page). */
export interface RecordingView extends RecordedSession {
  videoUrl?: string;
  logUrl?: string;
  /** The console log and the HAR the grid captured. */
  consoleUrl?: string;
  harUrl?: string;
  /** Only for a session that did not end by its client's DELETE: the last thing a failed test showed. */
  screenshotUrl?: string;
}

/** GET ui/api/recordings: the newest ended sessions with recordings the viewer may see, and how many match. */
export interface RecordingList {
  recordings: RecordingView[];
  total: number;
}
