/** POST /session: match the catalog, take a slot, launch a browser, forward the request, sign the session ID. */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import type { Dispatcher } from 'undici';
import { type Capabilities, isObject, parseNewSessionBody } from '../core/capabilities';
import { describeCatalog, matchCatalog, orderByWeight } from '../core/catalog';
import type { PoolConfig } from '../core/config';
import { formatDuration } from '../core/duration';
import { endSession } from '../core/end-session';
import { sessionNotCreated, WebDriverError } from '../core/errors';
import type { GridDeps } from '../core/grid-deps';
import type { LaunchedBrowser } from '../core/ports';
import { GRIDGATE_OPTIONS, type SessionLimits, sessionLimits } from '../core/session-limits';
import { publicWebSocketBase, rewriteWebSocketCapabilities } from './public-url';
import { readText } from './request-body';

interface Attempt {
  key: string;
  user: string;
  browserName: string;
  browserVersion: string;
  capabilities: Capabilities;
  limits: SessionLimits;
  signal: AbortSignal;
}

export async function createSession(c: Context, deps: GridDeps, agent: Dispatcher, basePath: string) {
  const user = c.get('user') as string;
  const request = parseNewSessionBody(await readText(c.req.raw, deps.config.limits.maxBodySize));
  const match = matchCatalog(deps.config, request.candidates);
  if (!match) {
    throw sessionNotCreated(
      `no browser here matches ${describeRequest(request.candidates)}; this grid offers ${describeCatalog(deps.config)}`,
    );
  }
  const { [GRIDGATE_OPTIONS]: options, ...capabilities } = match.capabilities;
  const attempt: Attempt = {
    key: randomBytes(8).toString('hex'),
    user,
    browserName: match.browserName,
    browserVersion: match.browserVersion,
    capabilities,
    limits: sessionLimits(deps.config, options),
    // The client going away and the deadline both stop the work, and whatever it had started.
    signal: AbortSignal.any([c.req.raw.signal, AbortSignal.timeout(deps.config.timeouts.newSession)]),
  };
  const started = deps.clock.now();
  deps.logger.log('SESSION_REQUESTED', {
    session: attempt.key,
    user,
    browserName: match.browserName,
    browserVersion: match.browserVersion,
  });
  const failures: string[] = [];
  for (const pool of orderByWeight(match.pools)) {
    if (attempt.signal.aborted) break;
    if (!(await deps.sessions.acquire(attempt.key, pool.name, pool.maxSessions))) {
      failures.push(`pool ${pool.name} is full (${pool.maxSessions} sessions)`);
      continue;
    }
    try {
      const value = await startInPool(deps, agent, pool, attempt);
      deps.logger.log('SESSION_CREATED', {
        session: attempt.key,
        user,
        pool: pool.name,
        ms: deps.clock.now() - started,
      });
      const base = publicWebSocketBase(c.req.raw, basePath, deps.config.publicUrl);
      const sessionId = value.sessionId;
      const answer = {
        ...value,
        capabilities: rewriteWebSocketCapabilities(value.capabilities, {
          base,
          token: sessionId,
          servesCdp: pool.kind === 'local',
        }),
      };
      // JSON Wire clients read the ID at the top level.
      return c.json(
        request.protocol === 'jsonwire' ? { sessionId, status: 0, value: answer } : { value: answer },
      );
    } catch (error) {
      await deps.sessions.release(attempt.key);
      failures.push(`pool ${pool.name}: ${(error as Error).message}`);
    }
  }
  const reason = attempt.signal.aborted ? abortReason(attempt.signal, deps) : failures.join('; ');
  deps.logger.log('SESSION_FAILED', { session: attempt.key, user, reason });
  throw sessionNotCreated(`cannot create a ${match.browserName} ${match.browserVersion} session: ${reason}`);
}

function abortReason(signal: AbortSignal, deps: GridDeps): string {
  return (signal.reason as Error)?.name === 'TimeoutError'
    ? `it took longer than ${formatDuration(deps.config.timeouts.newSession)}`
    : 'the client went away';
}

async function startInPool(deps: GridDeps, agent: Dispatcher, pool: PoolConfig, attempt: Attempt) {
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

interface CreatedSession {
  sessionId: string;
  capabilities: Capabilities;
  [key: string]: unknown;
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

function describeRequest(candidates: Capabilities[]): string {
  return candidates
    .map((caps) => {
      const parts = ['browserName', 'browserVersion', 'platformName']
        .filter((key) => caps[key] !== undefined)
        .map((key) => `${key} "${caps[key]}"`);
      return parts.length ? `{${parts.join(', ')}}` : '{no browserName}';
    })
    .join(' or ');
}
