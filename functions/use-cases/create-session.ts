/**
 * Creating a session (W3C §8.1 New Session), over a plain request record: match the catalog and the user's
 * rule, take a slot (waiting in the queue while the user or every pool is full), launch a browser in the
 * pools left to try (launch-in-pools.ts, launch-session.ts), and hand back the session with its signed ID.
 * What the client hears, and in which shape, is http/new-session.ts's.
 */

import { randomBytes } from 'node:crypto';
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
import { configTraitsOf } from '../core/config-traits-by-kind';
import { invalidArgument, sessionNotCreated, WebDriverError } from '../core/errors';
import { type GridDeps, traitsOf } from '../core/grid-deps';
import { hubAttemptShare } from '../core/host-choice';
import { recordingAsk } from '../core/recording-wish';
import { screenResolution, sessionTimeZone } from '../core/screen-and-zone';
import { GRIDGATE_OPTIONS, queueTimeout, sessionLimits } from '../core/session-limits';
import { protocolAsked } from '../core/session-protocol';
import { RETRY_AFTER_SECONDS, releaseSlot, type SlotRequest, takeSlot } from '../core/slots';
import { groupingAsked } from '../core/test-grouping';
import type { CreatedSession, UpstreamWebDriver } from '../core/upstream-webdriver';
import { matchForUser, userRule } from '../core/user-rules';
import { poolsThatRecord } from '../core/video-pools';
import { CreationReport } from './creation-report';
import { endSession } from './end-session';
import { launchInPools, type TimeLimit } from './launch-in-pools';
import type { LaunchAttempt } from './launch-session';

/** A new-session request as HTTP delivered it, nothing of HTTP left in it. */
export interface NewSessionRequest {
  /** Who asked (already authenticated). */
  user: string;
  /** The request's body as sent (read within the size limit). */
  body: string;
  /** The value of the colour header (`colors.header`), if the request carried one. */
  colorHeader?: string;
  /** The host the client addressed, for a colour in its subdomain. */
  host?: string;
  /** Aborted when the client goes away: waiting and starting stop, and whatever was started. */
  signal: AbortSignal;
  /** When the runtime ends this request (a Lambda's deadline) and what sets it; none: no such end. */
  deadline?: { at: number; source: string };
}

/** A created session: the browser's answer with gridgate's signed ID, and what its answer needs. */
export interface NewSession {
  /** The protocol the client spoke: JSON Wire clients read the ID at the top level. */
  protocol: 'w3c' | 'jsonwire';
  pool: PoolConfig;
  session: CreatedSession;
  /** The catalog's platformName, for a browser that answered none. */
  platformName: string;
}

/**
 * The budget left before a runtime's own end, never below 0 (then the work is refused at once).
 */
function untilDeadline(deadline: NewSessionRequest['deadline'], budgetMs: number): number {
  return deadline ? Math.max(0, Math.min(budgetMs, deadline.at - Date.now())) : budgetMs;
}

/** Creates the session or throws the WebDriverError the client is to hear. */
export async function createSession(
  deps: GridDeps,
  upstream: UpstreamWebDriver,
  request: NewSessionRequest,
): Promise<NewSession> {
  const body = parseNewSessionBody(request.body);
  const match = matchForUser(deps.config, request.user, body.candidates);
  const { [GRIDGATE_OPTIONS]: options, ...capabilities } = match.capabilities;
  // Read before anything is chosen: wrong options are refused whichever pool would serve.
  const limits = sessionLimits(deps.config, options);
  const recording = recordingAsk(capabilities, options);
  // Refused whichever pool would serve, as Grid refuses them before a node is chosen.
  sessionTimeZone(capabilities);
  screenResolution(capabilities);
  const grouping = groupingAsked(capabilities, options);
  const protocol = protocolAsked(options);
  const { user, signal: client, deadline } = request;
  const waitMs = untilDeadline(deadline, queueTimeout(deps.config, options));
  const { browserName, browserVersion } = match;
  const label = `${browserName} ${browserVersion}`;
  const color = requestColor(deps.config.colors, {
    options,
    header: request.colorHeader,
    host: request.host,
  })?.color;
  const choice = choosePools(deps.config.colors, color, match.pools, label);
  // Before the queue: a socket session's video waits only for pools that record it, or is refused at once.
  const pools = poolsThatRecord(choice.pools, { protocol, recording }, (pool) => traitsOf(deps, pool));
  // Refused whichever pool would serve: a request that may reach beyond its session on this machine never
  // waits for one.
  const refusal = pools.map((pool) => configTraitsOf(pool).launchRefusal?.(capabilities, pool)).find(Boolean);
  if (refusal) throw invalidArgument(refusal);
  const key = randomBytes(8).toString('hex');
  const report = new CreationReport(deps, {
    key,
    user,
    browserName,
    browserVersion,
    color,
    metricColor: metricColor(choice),
  });
  report.requested();

  const slots: SlotRequest = {
    key,
    user,
    userLimit: userRule(deps.config, user).maxSessions,
    // Only the pools the colour allows: the queue and every retry stay among them, so a coloured
    // request whose pools cannot serve never falls back to other ones.
    pools: orderByWeight(pools),
  };
  let pool: PoolConfig;
  try {
    pool = await takeSlot(deps, { ...slots, timeoutMs: waitMs, signal: client, label });
  } catch (error) {
    report.failed(client.aborted ? 'client gone' : 'queue');
    if (!client.aborted) throw explained(error, choice);
    report.logFailure('the client went away');
    throw sessionNotCreated(`cannot create a ${label} session: the client went away`);
  }
  if (deps.stopping?.()) {
    // The slot came from a session the shutdown just ended: a browser started now would outlive the server.
    await releaseSlot(deps, key);
    report.failed('shutdown', pool.name);
    throw sessionNotCreated(`cannot create a ${label} session: the grid is shutting down`);
  }
  const waitedMs = report.elapsedMs();
  report.slotTaken(pool.name, waitedMs);
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
    grouping,
    ...(protocol ? { protocol } : {}),
    // Starting gets the whole new-session timeout, however long the request waited for its slot. The
    // client going away and the deadline both stop the work, and whatever it had started.
    signal: AbortSignal.any([client, launchTimeout.signal]),
    hubAttemptMs: hubAttemptShare(slots.pools, launchMs),
  };
  const created = await launchInPools(deps, upstream, pool, slots, attempt, limit)
    .catch((error: unknown) => {
      report.failed('session', pool.name); // answered at once: a hub's protocol error, capabilities refused
      throw error;
    })
    .finally(launchTimeout.clear);
  if (!('failure' in created) && deps.stopping?.()) {
    // Started while the shutdown ended every session it knew of: end this one too, now.
    const record = await deps.sessions.get(key);
    if (record) await endSession(deps, record, 'server shutdown');
    report.failed('shutdown', created.pool.name);
    throw sessionNotCreated(`cannot create a ${label} session: the grid is shutting down`);
  }
  if ('failure' in created) {
    report.failed(created.stage);
    report.logFailure(created.failure);
    // Out of time, the grid was busy rather than the browser broken: the slot is free again, so the client
    // may try later, as after a queue timeout. Other failures would fail the same way again.
    const retry =
      created.stage === 'timeout' ? { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } } : {};
    throw sessionNotCreated(
      unservedMessage(choice, created.message ?? `cannot create a ${label} session: ${created.told}`),
      retry,
    );
  }
  report.created(created.pool.name, waitedMs);
  return { protocol: body.protocol, ...created, platformName: match.platformName };
}

/** A refusal of the chosen pools, saying when a colour's own pools could not serve and why none other was. */
function explained(error: unknown, choice: PoolChoice): unknown {
  if (!(error instanceof WebDriverError) || error.code !== 'session not created') return error;
  const message = unservedMessage(choice, error.message);
  if (message === error.message) return error;
  return sessionNotCreated(message, { cause: error.cause, headers: error.headers });
}
