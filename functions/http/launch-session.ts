/** One try at a session in one pool: start a browser, forward the new-session request, record it, sign its ID. */
import type { Dispatcher } from 'undici';
import { type Capabilities, isObject } from '../core/capabilities';
import type { PoolConfig } from '../core/config';
import { endSession } from '../core/end-session';
import { WebDriverError } from '../core/errors';
import type { GridDeps } from '../core/grid-deps';
import type { LaunchedBrowser } from '../core/ports';
import type { SessionLimits } from '../core/session-limits';

export interface LaunchAttempt {
  key: string;
  user: string;
  browserName: string;
  browserVersion: string;
  capabilities: Capabilities;
  limits: SessionLimits;
  /** Aborted when the client goes away or the new-session deadline passes. */
  signal: AbortSignal;
}

export interface CreatedSession {
  sessionId: string;
  capabilities: Capabilities;
  [key: string]: unknown;
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
): Promise<CreatedSession> {
  const launcher = deps.launchers[pool.kind];
  if (!launcher) throw new Error(`no launcher for ${pool.kind} pools`);
  const browser = await launcher.start({ pool, capabilities: attempt.capabilities, signal: attempt.signal });
  try {
    const created = await forwardNewSession(agent, browser, attempt.signal);
    const now = deps.clock.now();
    const sessionId = deps.tokens.sign(
      {
        key: attempt.key,
        pool: pool.name,
        address: browser.address,
        upstreamId: created.sessionId,
        handle: browser.handle,
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
      handle: browser.handle,
      upstreamId: created.sessionId,
      createdAt: now,
      lastActivityAt: now,
      ...attempt.limits,
    });
    if (attempt.signal.aborted) {
      await endSession(deps, { key: attempt.key, pool: pool.name, handle: browser.handle }, 'deleted');
      throw attempt.signal.reason;
    }
    return { ...created, sessionId };
  } catch (error) {
    await launcher.stop(browser.handle);
    throw error;
  }
}

async function forwardNewSession(
  agent: Dispatcher,
  browser: LaunchedBrowser,
  signal: AbortSignal,
): Promise<CreatedSession> {
  const response = await agent.request({
    origin: `http://${browser.address}`,
    path: '/session',
    method: 'POST',
    // Selenium Grid 4 refuses a new-session request without the charset (ggr #355).
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ capabilities: { alwaysMatch: browser.capabilities, firstMatch: [{}] } }),
    signal,
  });
  const text = await response.body.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`the browser answered ${response.statusCode} with no JSON: ${text.slice(0, 200)}`);
  }
  const value = isObject(body) ? body.value : undefined;
  if (response.statusCode !== 200) {
    const message = isObject(value) && typeof value.message === 'string' ? value.message : text.slice(0, 300);
    throw new Error(`the browser refused the session (${response.statusCode}): ${message}`);
  }
  if (!isObject(value) || typeof value.sessionId !== 'string' || !isObject(value.capabilities)) {
    throw new WebDriverError(
      'unknown error',
      'the browser answered the new-session request without a session',
      { status: 502 },
    );
  }
  return value as CreatedSession;
}

/** Chromium's DevTools address from chromedriver's answer ("localhost:41575" → "127.0.0.1:41575"). */
function devtoolsAddress(capabilities: Capabilities): string {
  const options = capabilities['goog:chromeOptions'];
  const address =
    isObject(options) && typeof options.debuggerAddress === 'string' ? options.debuggerAddress : '';
  return address.replace(/^localhost:/, '127.0.0.1:');
}
