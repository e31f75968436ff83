/** One try at a session in one pool: start a browser, forward the new-session request, record it, sign its ID. */

import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { type UpstreamEndpoint, upstreamEndpoint } from '../core/browser-network';
import { type Capabilities, isObject } from '../core/capabilities';
import type { PoolConfig } from '../core/config';
import { stageRank } from '../core/creation-stages';
import { devtoolsAddress } from '../core/devtools-address';
import { endSession } from '../core/end-session';
import { invalidArgument, WebDriverError } from '../core/errors';
import type { GridDeps } from '../core/grid-deps';
import { LaunchFailure } from '../core/host-choice';
import type { CreationStage, LaunchedBrowser } from '../core/ports';
import { type RecordingAsk, recordingWish } from '../core/recording-wish';
import type { SessionLimits } from '../core/session-limits';
import { colorHeaderName, sendColorHeader } from './color-header';

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
  /** The most one attempt at a hub without a `timeout` of its own may take (core/host-choice's share). */
  hubAttemptMs?: number;
}

export interface CreatedSession {
  sessionId: string;
  capabilities: Capabilities;
  [key: string]: unknown;
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
 * what it started and throws; freeing the slot is the caller's job.
 */
export async function launchSession(
  deps: GridDeps,
  agent: Dispatcher,
  pool: PoolConfig,
  attempt: LaunchAttempt,
  place: AttemptPlace,
): Promise<CreatedSession> {
  const launcher = deps.launchers[pool.kind];
  if (!launcher) throw new Error(`no launcher for ${pool.kind} pools`);
  const onStage = stageMarker(deps, attempt.key);
  onStage('launch');
  const recording = recordingWish(deps.config, pool, attempt.recording ?? {});
  const browser = await launcher.start({
    pool,
    key: attempt.key,
    user: attempt.user,
    idleTimeoutMs: attempt.limits.idleTimeoutMs,
    capabilities: attempt.capabilities,
    browserVersion: attempt.browserVersion,
    signal: attempt.signal,
    onStage,
    recording,
  });
  let upstreamId = '';
  try {
    onStage('session');
    const created = await withAttemptTimeout(pool, attempt, (signal) =>
      forwardNewSession(agent, pool, browser, signal, place),
    );
    upstreamId = created.sessionId;
    await launcher.opened?.(browser.handle, created.capabilities);
    const header = colorHeaderName(pool, deps.config.colors);
    if (header && attempt.color) {
      const target = {
        endpoint: upstreamEndpoint(pool, browser.address),
        upstreamId,
        capabilities: created.capabilities,
      };
      await sendColorHeader(agent, target, header, attempt.color, attempt.signal);
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
        devtools: pool.kind === 'local' ? devtoolsAddress(created.capabilities) : '',
        createdAt: now,
        maxAgeMs: attempt.limits.maxAgeMs,
      },
      attempt.user,
    );
    await deps.sessions.add({
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
      ...(browser.billing ? { billing: browser.billing } : {}),
      ...(recording.name ? { name: recording.name } : {}),
    });
    if (attempt.signal.aborted) {
      await endSession(
        deps,
        { key: attempt.key, pool: pool.name, handle, upstreamId: created.sessionId },
        'client gone',
      );
      throw attempt.signal.reason;
    }
    const capabilities = browser.served
      ? { ...created.capabilities, ...browser.served }
      : created.capabilities;
    return { ...created, sessionId, capabilities };
  } catch (error) {
    // With the upstream's session ID, a hub ends the session it had created too.
    await launcher.stop(browser.handle, { pool, reason: 'creation failed', upstreamId });
    throw error;
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

// A stray session found in a malformed answer gets this long to be deleted.
const STRAY_DELETE_MS = 5000;

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
  const ms = pool.kind === 'hub' ? (pool.timeout ?? hubAttemptMs) : undefined;
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

async function forwardNewSession(
  agent: Dispatcher,
  pool: PoolConfig,
  browser: LaunchedBrowser,
  signal: AbortSignal,
  place: AttemptPlace,
): Promise<CreatedSession> {
  const endpoint = upstreamEndpoint(pool, browser.address);
  const headers: Record<string, string> = {
    // Selenium Grid 4 refuses a new-session request without the charset (ggr #355).
    'content-type': 'application/json; charset=utf-8',
    // Hubs behind proxies answered gzip that nobody decoded (ggr #294): ask for none, decode anyway.
    'accept-encoding': 'identity',
  };
  // Selenoid answers 429 at once to a request with this header (any value) when it is full; other hubs
  // ignore it. Empty, as ggr sends it.
  if (pool.kind === 'hub' && place.othersLeft) headers['x-selenoid-no-wait'] = '';
  if (endpoint.authorization) headers.authorization = endpoint.authorization;
  let response: Dispatcher.ResponseData;
  let text: string;
  try {
    response = await agent.request({
      origin: endpoint.origin,
      path: `${endpoint.basePath}/session`,
      method: 'POST',
      headers,
      body: JSON.stringify({ capabilities: { alwaysMatch: browser.capabilities, firstMatch: [{}] } }),
      signal,
    });
    text = decode(Buffer.from(await response.body.arrayBuffer()), response.headers['content-encoding']);
  } catch (error) {
    throw new LaunchFailure('unreachable', (error as Error).message, '', { cause: error });
  }
  // Old hubs may answer with only a redirect to the new session (as ggr accepts).
  const located = pool.kind === 'hub' ? locatedSession(response) : undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    if (located) return located;
    throw new LaunchFailure(
      'unreachable',
      `the browser answered ${response.statusCode} with no JSON: ${text.slice(0, 200)}`,
    );
  }
  const value = isObject(body) ? body.value : undefined;
  if (response.statusCode !== 200 && !located) {
    const hostError = isObject(value) && typeof value.message === 'string' ? value.message : '';
    // The capabilities are wrong (W3C §7.2), not the browser: the client hears the browser's own words.
    if (response.statusCode === 400 && isObject(value) && value.error === 'invalid argument') {
      throw invalidArgument(hostError || 'the browser refused the capabilities');
    }
    const message = hostError || text.slice(0, 300);
    throw new LaunchFailure(
      'refused',
      `the browser refused the session (${response.statusCode}): ${message}`,
      hostError,
    );
  }
  const created = createdSession(body, pool) ?? located;
  if (created) return created;
  const stray = straySessionId(body);
  if (stray !== undefined) await deleteQuietly(agent, endpoint, stray);
  throw new WebDriverError(
    'unknown error',
    'protocol error: the browser answered the new-session request without a session',
    { status: 502 },
  );
}

/** The W3C answer, or a JSON Wire hub's (session ID at the top level, capabilities as the value). */
function createdSession(body: unknown, pool: PoolConfig): CreatedSession | undefined {
  if (!isObject(body)) return undefined;
  const { value } = body;
  if (isObject(value) && typeof value.sessionId === 'string') {
    if (isObject(value.capabilities)) return value as CreatedSession;
    // Hubs are other people's software: a session without capabilities is still a session.
    if (pool.kind === 'hub') return { ...value, sessionId: value.sessionId, capabilities: {} };
    return undefined;
  }
  if (pool.kind === 'hub' && typeof body.sessionId === 'string' && isObject(value)) {
    return { sessionId: body.sessionId, capabilities: value };
  }
  return undefined;
}

/** A session named only by a Location header (…/session/{id}) of an answer below 400. */
function locatedSession(response: Dispatcher.ResponseData): CreatedSession | undefined {
  const location = response.headers.location;
  if (response.statusCode >= 400 || typeof location !== 'string') return undefined;
  const match = /\/session\/([^/?#]+)\/?(?:[?#].*)?$/.exec(location);
  return match ? { sessionId: decodeURIComponent(match[1] as string), capabilities: {} } : undefined;
}

/** Any session ID in a malformed answer, so the session it may have started is not left running. */
function straySessionId(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const candidates = [body.sessionId, isObject(body.value) ? body.value.sessionId : undefined];
  const found = candidates.find((id) => typeof id === 'string' || typeof id === 'number');
  return found === undefined || found === '' ? undefined : String(found);
}

async function deleteQuietly(agent: Dispatcher, endpoint: UpstreamEndpoint, upstreamId: string) {
  try {
    const response = await agent.request({
      origin: endpoint.origin,
      path: `${endpoint.basePath}/session/${encodeURIComponent(upstreamId)}`,
      method: 'DELETE',
      headers: endpoint.authorization ? { authorization: endpoint.authorization } : {},
      signal: AbortSignal.timeout(STRAY_DELETE_MS),
    });
    await response.body.dump();
  } catch {
    // Best effort: the answer the client gets is the protocol error either way.
  }
}

function decode(bytes: Buffer, encoding: string | string[] | undefined): string {
  const name = String(encoding ?? '').toLowerCase();
  if (name === 'gzip' || name === 'x-gzip') return gunzipSync(bytes).toString('utf8');
  if (name === 'deflate') return inflateSync(bytes).toString('utf8');
  if (name === 'br') return brotliDecompressSync(bytes).toString('utf8');
  return bytes.toString('utf8');
}
