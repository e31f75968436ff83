/**
 * One try at a session in one pool: start a browser, open the WebDriver session on it, record the session,
 * sign its ID. On failure or abort it stops what it started; freeing the slot is the caller's job.
 */

import { browserInUseMs } from '../core/browser-lifetime';
import { upstreamEndpoint } from '../core/browser-network';
import type { Capabilities } from '../core/capabilities';
import { colorHeaderName } from '../core/color-choice';
import type { PoolConfig } from '../core/config';
import { configTraitsOf } from '../core/config-traits-by-kind';
import { stageRank } from '../core/creation-stages';
import { withDevtoolsAt } from '../core/devtools-address';
import { type GridDeps, runtimeOf, traitsOf } from '../core/grid-deps';
import type { CreationStage, SessionRecord } from '../core/ports';
import { type RecordingAsk, recordingWish } from '../core/recording-wish';
import type { SessionLimits } from '../core/session-limits';
import type { SocketSessionProtocol } from '../core/socket-session-request';
import { type TestMarks, withMarks } from '../core/test-marks';
import type { CreatedSession, UpstreamWebDriver } from '../core/upstream-webdriver';
import { endSession } from './end-session';

export interface LaunchAttempt {
  key: string;
  user: string;
  browserName: string;
  browserVersion: string;
  capabilities: Capabilities;
  limits: SessionLimits;
  /** The environment colour the request carries, if any: recorded, and sent by browsers whose pool says so. */
  color?: string;
  /** Aborted when the client goes away or the new-session deadline passes. */
  signal: AbortSignal;
  /** What the client asked to have recorded (video, log) and its test's name. */
  recording?: RecordingAsk;
  /** The test's name, build, project and labels its capabilities carry (core/test-grouping.ts). */
  grouping?: TestMarks;
  /** The protocol of a session that is one WebSocket (core/session-protocol.ts); none: WebDriver. */
  protocol?: SocketSessionProtocol;
  /** The most one attempt at a hub without a `timeout` of its own may take (core/host-choice's share). */
  hubAttemptMs?: number;
}

/** How this attempt stands among the request's others. */
export interface AttemptPlace {
  /**
   * Another pool is left to try after this one: a busy Selenoid hub is then asked to refuse at once
   * (X-Selenoid-No-Wait, as ggr sends it whenever more than one host is left) instead of queueing the request.
   */
  othersLeft: boolean;
}

/**
 * Starts the session in the pool (whose slot the caller holds) and answers with the browser's
 * new-session value, its session ID replaced by gridgate's signed one. On failure or abort it stops
 * what it started and throws.
 */
export async function launchSession(
  deps: GridDeps,
  upstream: UpstreamWebDriver,
  pool: PoolConfig,
  attempt: LaunchAttempt,
  place: AttemptPlace,
): Promise<CreatedSession> {
  const runtime = runtimeOf(deps, pool);
  if (!runtime) throw new Error(`no launcher for ${pool.kind} pools`);
  const { launcher } = runtime;
  const onStage = stageMarker(deps, attempt.key);
  onStage('launch');
  const recording = recordingWish(deps.config, pool, attempt.recording ?? {});
  const browser = await launcher.start({
    pool,
    key: attempt.key,
    user: attempt.user,
    idleTimeoutMs: attempt.limits.idleTimeoutMs,
    inUseMs: browserInUseMs({
      newSession: deps.config.timeouts.newSession,
      maxAge: attempt.limits.maxAgeMs,
    }),
    capabilities: attempt.capabilities,
    browserVersion: attempt.browserVersion,
    signal: attempt.signal,
    onStage,
    recording,
  });
  let upstreamId = '';
  try {
    onStage('session');
    const endpoint = upstreamEndpoint(pool, browser.address);
    const hub = traitsOf(deps, pool).remoteEnd === 'hub';
    const created = await withAttemptTimeout(pool, attempt, (signal) =>
      upstream.newSession({
        endpoint,
        capabilities: browser.capabilities,
        hub,
        noWait: hub && place.othersLeft,
        signal,
      }),
    );
    upstreamId = created.sessionId;
    // What gridgate serves itself for this browser is part of its answer from here on: its managed downloads,
    // and its DevTools where the launcher reaches them once the session is open (se:cdp, CDP and Playwright
    // clients are served there, as its video and captures are made there).
    const answered = browser.served ? { ...created.capabilities, ...browser.served } : created.capabilities;
    await runtime.opener?.opened(browser.handle, answered);
    const devtools = runtime.devtools?.devtools(browser.handle);
    const capabilities = devtools ? withDevtoolsAt(answered, devtools) : answered;
    const header = colorHeaderName(pool, deps.config.colors);
    if (header && attempt.color) {
      const target = { endpoint, upstreamId, capabilities: created.capabilities };
      await upstream.sendColorHeader(target, header, attempt.color, attempt.signal);
    }
    const now = deps.clock.now();
    const { handle } = browser;
    const sessionId = deps.tokens.sign(
      {
        key: attempt.key,
        pool: pool.name,
        address: browser.address,
        upstreamId: created.sessionId,
        handle,
        devtools: devtools ?? '',
        createdAt: now,
        maxAgeMs: attempt.limits.maxAgeMs,
      },
      attempt.user,
    );
    await recordSession(deps, {
      key: attempt.key,
      user: attempt.user,
      pool: pool.name,
      browserName: attempt.browserName,
      browserVersion: attempt.browserVersion,
      address: browser.address,
      handle,
      upstreamId: created.sessionId,
      createdAt: now,
      lastActivityAt: now,
      ...attempt.limits,
      ...(attempt.color ? { color: attempt.color } : {}),
      ...(attempt.protocol ? { protocol: attempt.protocol } : {}),
      ...(browser.billing ? { billing: browser.billing } : {}),
      ...withMarks({}, { ...(recording.name ? { name: recording.name } : {}), ...attempt.grouping }),
      ...(deps.head ? { head: deps.head } : {}),
      // The store keeps a session that records anything listed for as long as its recordings are kept.
      ...(recording.video || recording.log || recording.console || recording.network
        ? {
            recording: {
              video: recording.video,
              log: recording.log,
              retentionMs: deps.config.recording.retention,
              ...(recording.keep === 'failed' ? { keep: 'failed' as const } : {}),
            },
          }
        : {}),
    });
    if (attempt.signal.aborted) {
      await endSession(
        deps,
        { key: attempt.key, pool: pool.name, handle, upstreamId: created.sessionId },
        'client gone',
      );
      throw attempt.signal.reason;
    }
    return { ...created, sessionId, capabilities };
  } catch (error) {
    // With the upstream's session ID, a hub ends the session it had created too.
    await launcher.stop(browser.handle, { key: attempt.key, pool, reason: 'creation failed', upstreamId });
    throw error;
  }
}

/**
 * Writes the session's record and starts its idle clock once the store has taken it: the new-session
 * answer goes out next. A store slow to take the write (retries, throttling) would otherwise spend the idle
 * timeout before the first command; meanwhile the expiry sweep leaves the session alone (GridDeps.creating),
 * whatever time the store already shows.
 */
async function recordSession(deps: GridDeps, record: SessionRecord): Promise<void> {
  deps.creating?.add(record.key);
  try {
    await deps.sessions.add(record);
    deps.sessions.touch(record.key, deps.clock.now());
  } catch (error) {
    // The store may have taken the write all the same: the record that then shows is ended for this.
    deps.ended.remember(record.key, { reason: 'creation failed' });
    throw error;
  } finally {
    deps.creating?.delete(record.key);
  }
}

/**
 * Notes each stage on the session's slot for the status page, forward only: a launcher repeating a stage
 * (or reporting one already passed) costs no store write. Never throws and is never awaited: progress
 * shown to people must neither fail nor slow the creation it describes, and a store in trouble says so
 * on the creation's own writes (its slot, its record) anyway.
 */
function stageMarker(deps: GridDeps, key: string): (stage: CreationStage) => void {
  let reached = -1;
  return (stage) => {
    const index = stageRank(stage);
    if (index <= reached) return;
    reached = index;
    deps.sessions.markStage(key, stage, deps.clock.now()).catch(() => {});
  };
}

/**
 * A hub's per-attempt timeout (ggr's -timeout): its `timeout`, else its share of the time for starting; a
 * hub that is too slow counts as unreachable and the next one is tried. A timer of our own, cleared once
 * the answer is in, rather than AbortSignal.timeout, which nothing would hold.
 */
async function withAttemptTimeout<T>(
  pool: PoolConfig,
  { signal, hubAttemptMs }: LaunchAttempt,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const bound = configTraitsOf(pool).attemptTimeoutMs;
  const ms = bound ? bound(pool, hubAttemptMs) : undefined;
  if (ms === undefined) return work(signal);
  const timer = new AbortController();
  const handle = setTimeout(
    () => timer.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')),
    ms,
  );
  try {
    return await work(AbortSignal.any([signal, timer.signal]));
  } finally {
    clearTimeout(handle);
  }
}
