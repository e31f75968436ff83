/**
 * POST /session: match the catalog and the user's rule, take a slot (waiting in the queue while the user
 * or every pool is full), launch a browser, answer with the signed session ID.
 */

import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import type { Dispatcher } from 'undici';
import { abortAfter } from '../core/abort-after';
import { parseNewSessionBody } from '../core/capabilities';
import { orderByWeight } from '../core/catalog';
import {
  choosePools,
  metricColor,
  type PoolChoice,
  requestColor,
  unservedMessage,
} from '../core/color-choice';
import type { PoolConfig } from '../core/config';
import { formatDuration } from '../core/duration';
import { endSession } from '../core/end-session';
import { invalidArgument, sessionNotCreated, WebDriverError } from '../core/errors';
import type { GridDeps } from '../core/grid-deps';
import {
  hubAttemptShare,
  LaunchFailure,
  NO_FAILURES,
  nextCandidates,
  recordFailure,
} from '../core/host-choice';
import { hostProgramRefusal } from '../core/host-programs';
import { noMetrics } from '../core/ports';
import { recordingAsk } from '../core/recording-wish';
import { GRIDGATE_OPTIONS, queueTimeout, sessionLimits } from '../core/session-limits';
import { releaseSlot, type SlotRequest, takeSlot, trySlot } from '../core/slots';
import { matchForUser, userRule } from '../core/user-rules';
import { type CreatedSession, type LaunchAttempt, launchSession } from './launch-session';
import { publicWebSocketBase, rewriteWebSocketCapabilities, withoutWebSockets } from './public-url';
import { readText } from './request-body';
import { type Deadline, requestDeadline } from './runtime-limits';
import { webDriverJson } from './webdriver-json';

export interface NewSessionOptions {
  /** Whether clients can reach gridgate over WebSockets; not behind Lambda, so no WebSocket URLs then. */
  webSockets: boolean;
}

/**
 * The budget left before a runtime's own end (a Lambda's, runtime-limits.ts), never below 0 (then the
 * work is refused at once).
 */
function untilDeadline(deadline: Deadline | undefined, budgetMs: number): number {
  return deadline ? Math.max(0, Math.min(budgetMs, deadline.at - Date.now())) : budgetMs;
}

export async function createSession(
  c: Context,
  deps: GridDeps,
  agent: Dispatcher,
  basePath: string,
  mode: NewSessionOptions = { webSockets: true },
) {
  const user = c.get('user') as string;
  const request = parseNewSessionBody(await readText(c.req.raw, deps.config.limits.maxBodySize));
  const match = matchForUser(deps.config, user, request.candidates);
  const { [GRIDGATE_OPTIONS]: options, ...capabilities } = match.capabilities;
  const limits = sessionLimits(deps.config, options);
  const recording = recordingAsk(capabilities, options);
  const deadline = requestDeadline(c.env);
  const waitMs = untilDeadline(deadline, queueTimeout(deps.config, options));
  const { browserName, browserVersion } = match;
  const label = `${browserName} ${browserVersion}`;
  const color = requestColor(deps.config.colors, {
    options,
    header: c.req.header(deps.config.colors.header),
    host: clientHost(c.req.raw),
  })?.color;
  const choice = choosePools(deps.config.colors, color, match.pools, label);
  // Refused whichever pool would serve: a request that may run a program on this machine never waits for one.
  const refusal = choice.pools.map((pool) => hostProgramRefusal(capabilities, pool)).find(Boolean);
  if (refusal) throw invalidArgument(refusal);
  // Bounded by the configured colours: a colour only a client named is not a dimension.
  const configuredColor = metricColor(choice);
  const colorDimension = configuredColor ? { color: configuredColor } : {};
  const key = randomBytes(8).toString('hex');
  const client = c.req.raw.signal;
  const started = deps.clock.now();
  deps.logger.log('SESSION_REQUESTED', {
    session: key,
    user,
    browserName,
    browserVersion,
    ...(color ? { color } : {}),
  });
  const metrics = deps.metrics ?? noMetrics;
  metrics.count('SessionsRequested', { browser: browserName, ...colorDimension });
  const failed = (stage: string, pool?: string) => {
    metrics.count('SessionsFailed', { browser: browserName, stage, pool, ...colorDimension });
    metrics.gauge('SessionFailurePercent', 100);
    metrics.timing('NewSessionLatency', deps.clock.now() - started, {
      browser: browserName,
      outcome: 'failed',
      ...colorDimension,
    });
  };

  const slots: SlotRequest = {
    key,
    user,
    userLimit: userRule(deps.config, user).maxSessions,
    // Only the pools the colour allows: the queue and every retry stay among them, so a coloured
    // request whose pools cannot serve never falls back to other ones.
    pools: orderByWeight(choice.pools),
  };
  let pool: PoolConfig;
  try {
    pool = await takeSlot(deps, { ...slots, timeoutMs: waitMs, signal: client, label });
  } catch (error) {
    failed(client.aborted ? 'client gone' : 'queue');
    if (!client.aborted) throw explained(error, choice);
    deps.logger.log('SESSION_FAILED', { session: key, user, reason: 'the client went away' });
    throw sessionNotCreated(`cannot create a ${label} session: the client went away`);
  }
  if (deps.stopping?.()) {
    // The slot came from a session the shutdown just ended: a browser started now would outlive the server.
    await releaseSlot(deps, key);
    failed('shutdown', pool.name);
    throw sessionNotCreated(`cannot create a ${label} session: the grid is shutting down`);
  }
  const waitedMs = deps.clock.now() - started;
  metrics.timing('QueueWait', waitedMs, { pool: pool.name });
  const launchMs = untilDeadline(deadline, deps.config.timeouts.newSession);
  const limit: TimeLimit =
    launchMs < deps.config.timeouts.newSession && deadline
      ? { ms: launchMs, source: deadline.source }
      : { ms: deps.config.timeouts.newSession, source: 'timeouts.newSession' };
  const launchTimeout = abortAfter(launchMs);
  const attempt: LaunchAttempt = {
    key,
    user,
    browserName,
    browserVersion,
    capabilities,
    limits,
    color,
    recording,
    // Starting gets the whole new-session timeout, however long the request waited for its slot. The
    // client going away and the deadline both stop the work, and whatever it had started.
    signal: AbortSignal.any([client, launchTimeout.signal]),
    hubAttemptMs: hubAttemptShare(slots.pools, launchMs),
  };
  const created = await launchInPools(deps, agent, pool, slots, attempt, limit)
    .catch((error: unknown) => {
      failed('session', pool.name); // answered at once: a hub's protocol error, capabilities refused
      throw error;
    })
    .finally(launchTimeout.clear);
  if (!('failure' in created) && deps.stopping?.()) {
    // Started while the shutdown ended every session it knew of: end this one too, now.
    const record = await deps.sessions.get(key);
    if (record) await endSession(deps, record, 'server shutdown');
    failed('shutdown', created.pool.name);
    throw sessionNotCreated(`cannot create a ${label} session: the grid is shutting down`);
  }
  if ('failure' in created) {
    failed(created.stage);
    deps.logger.log('SESSION_FAILED', { session: key, user, reason: created.failure });
    throw sessionNotCreated(
      unservedMessage(choice, created.message ?? `cannot create a ${label} session: ${created.failure}`),
    );
  }
  const ms = deps.clock.now() - started;
  deps.logger.log('SESSION_CREATED', {
    session: key,
    user,
    pool: created.pool.name,
    ms,
    waitedMs,
    ...(color ? { color } : {}),
  });
  const dimensions = { pool: created.pool.name, browser: browserName, ...colorDimension };
  metrics.count('SessionsCreated', dimensions);
  metrics.gauge('SessionFailurePercent', 0);
  metrics.timing('NewSessionLatency', ms, { ...dimensions, outcome: 'created' });
  return answer(c, deps, basePath, request.protocol, created, mode, match.platformName);
}

/** The host the client addressed, for a colour in its subdomain: behind a proxy, what the proxy was asked. */
function clientHost(request: Request): string | undefined {
  const forwarded = request.headers.get('x-forwarded-host')?.split(',')[0]?.trim();
  return forwarded || request.headers.get('host') || new URL(request.url).host;
}

/** A refusal of the chosen pools, saying when a colour's own pools could not serve and why none other was. */
function explained(error: unknown, choice: PoolChoice): unknown {
  if (!(error instanceof WebDriverError) || error.code !== 'session not created') return error;
  const message = unservedMessage(choice, error.message);
  if (message === error.message) return error;
  return sessionNotCreated(message, { cause: error.cause, headers: error.headers });
}

/**
 * A session, or why none: `failure` for the log, `message` for the client when it is not the usual one,
 * `stage` for the metrics (where the last attempt failed).
 */
type Launched =
  | { pool: PoolConfig; session: CreatedSession }
  | { failure: string; message?: string; stage: string };

/**
 * Launches in the pool whose slot is held; when that fails, frees the slot and tries the next pool the
 * ggr rules leave (core/host-choice) that has a free slot at once (the queue is not joined again). A hub
 * that answers a new session without its ID is a protocol error: 502 at once, no retry.
 */
async function launchInPools(
  deps: GridDeps,
  agent: Dispatcher,
  first: PoolConfig,
  slots: SlotRequest,
  attempt: LaunchAttempt,
  limit: TimeLimit,
): Promise<Launched> {
  const failures: string[] = [];
  let hostError = '';
  let refusal = '';
  let attempts = 0;
  let stage = 'launch';
  let state = NO_FAILURES;
  let pool: PoolConfig | undefined = first;
  // The pools this attempt's was chosen from (it among them).
  let candidates = slots.pools;
  while (pool) {
    attempts++;
    try {
      const place = { othersLeft: candidates.length > 1 };
      return { pool, session: await launchSession(deps, agent, pool, attempt, place) };
    } catch (error) {
      await releaseSlot(deps, attempt.key);
      if (answeredAtOnce(pool, error)) {
        deps.logger.log('SESSION_FAILED', {
          session: attempt.key,
          user: attempt.user,
          reason: error.message,
        });
        throw error;
      }
      failures.push(`pool ${pool.name}: ${(error as Error).message}`);
      const failure = error instanceof LaunchFailure ? error : undefined;
      stage = failureStage(error);
      hostError = failure?.hostError ?? '';
      state = recordFailure(state, pool, failure?.outcome ?? 'refused');
    }
    if (attempt.signal.aborted) {
      const timedOut = (attempt.signal.reason as Error)?.name === 'TimeoutError';
      return { failure: abortReason(attempt.signal, limit), stage: timedOut ? 'timeout' : 'client gone' };
    }
    const remaining = nextCandidates(slots.pools, state);
    if (remaining.length === 0) break;
    candidates = remaining;
    const next = await trySlot(deps, { ...slots, pools: remaining });
    pool = 'taken' in next ? next.taken : undefined;
    if ('refused' in next) {
      failures.push(next.refused);
      refusal = `; ${next.refused}`;
    }
  }
  const failure = failures.join('; ');
  if (!slots.pools.some((p) => p.kind === 'hub')) return { failure, stage };
  // ggr's wording, which its users search their logs for (ggr #307); it never names a hub.
  const { browserName, browserVersion } = attempt;
  const what = browserVersion ? `${browserName}-${browserVersion}` : browserName;
  const last = hostError ? `, last host error was: ${hostError}` : '';
  return {
    failure,
    message: `cannot create session ${what} on any hosts after ${attempts} attempt(s)${last}${refusal}`,
    stage,
  };
}

/**
 * Errors no other pool would answer differently, so the client hears them at once: a hub's protocol error
 * (502), a browser refusing the capabilities as `invalid argument` (W3C §7.2: the request is wrong), and
 * the session store unavailable (503 with Retry-After: recording the session failed, not the pool, and
 * every other pool meets the same store).
 */
function answeredAtOnce(pool: PoolConfig, error: unknown): error is WebDriverError {
  if (!(error instanceof WebDriverError)) return false;
  if (error.status === 503) return true;
  return error.code === 'invalid argument' || (pool.kind === 'hub' && error.status === 502);
}

/**
 * Where an attempt failed, as the metrics name it: the launcher's own stage when it has one (an ECS
 * task's capacity, launch, pull, driver); the new-session request to the browser or hub (refused or not
 * answered); else starting the browser.
 */
function failureStage(error: unknown): string {
  const stage = (error as { stage?: unknown } | undefined)?.stage;
  if (typeof stage === 'string') return stage;
  return error instanceof LaunchFailure || error instanceof WebDriverError ? 'session' : 'launch';
}

/** How long starting may take, and what set that: the config, or the runtime's deadline (a Lambda's). */
interface TimeLimit {
  ms: number;
  source: string;
}

function abortReason(signal: AbortSignal, limit: TimeLimit): string {
  if ((signal.reason as Error)?.name !== 'TimeoutError') return 'the client went away';
  if (limit.source === 'timeouts.newSession') return `it took longer than ${formatDuration(limit.ms)}`;
  return `it took longer than the ${formatDuration(limit.ms)} left before ${limit.source}`;
}

/** The answer, its WebSocket URLs pointing at gridgate; JSON Wire clients read the ID at the top level. */
function answer(
  c: Context,
  deps: GridDeps,
  basePath: string,
  protocol: 'w3c' | 'jsonwire',
  { pool, session }: { pool: PoolConfig; session: CreatedSession },
  mode: NewSessionOptions,
  platformName: string,
) {
  const sessionId = session.sessionId;
  // chromedriver attached to a pre-started Chromium answers an empty platformName; the catalog's is true.
  const reported = session.capabilities.platformName
    ? session.capabilities
    : { ...session.capabilities, platformName };
  const capabilities = mode.webSockets
    ? rewriteWebSocketCapabilities(reported, {
        base: publicWebSocketBase(c.req.raw, basePath, deps.config.publicUrl),
        token: sessionId,
        servesCdp: pool.kind === 'local',
      })
    : withoutWebSockets(reported);
  const value = { ...session, capabilities };
  return webDriverJson(c, protocol === 'jsonwire' ? { sessionId, status: 0, value } : { value });
}
