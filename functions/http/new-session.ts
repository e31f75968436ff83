/**
 * POST /session: match the catalog and the user's rule, take a slot (waiting in the queue while the user
 * or every pool is full), launch a browser, answer with the signed session ID.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import type { Dispatcher } from 'undici';
import { parseNewSessionBody } from '../core/capabilities';
import { orderByWeight } from '../core/catalog';
import type { PoolConfig } from '../core/config';
import { formatDuration } from '../core/duration';
import { sessionNotCreated } from '../core/errors';
import type { GridDeps } from '../core/grid-deps';
import { GRIDGATE_OPTIONS, queueTimeout, sessionLimits } from '../core/session-limits';
import { releaseSlot, type SlotRequest, takeSlot, trySlot } from '../core/slots';
import { matchForUser, userRule } from '../core/user-rules';
import { type CreatedSession, type LaunchAttempt, launchSession } from './launch-session';
import { publicWebSocketBase, rewriteWebSocketCapabilities } from './public-url';
import { readText } from './request-body';

export async function createSession(c: Context, deps: GridDeps, agent: Dispatcher, basePath: string) {
  const user = c.get('user') as string;
  const request = parseNewSessionBody(await readText(c.req.raw, deps.config.limits.maxBodySize));
  const match = matchForUser(deps.config, user, request.candidates);
  const { [GRIDGATE_OPTIONS]: options, ...capabilities } = match.capabilities;
  const limits = sessionLimits(deps.config, options);
  const waitMs = queueTimeout(deps.config, options);
  const { browserName, browserVersion } = match;
  const label = `${browserName} ${browserVersion}`;
  const key = randomBytes(8).toString('hex');
  const client = c.req.raw.signal;
  const started = deps.clock.now();
  deps.logger.log('SESSION_REQUESTED', { session: key, user, browserName, browserVersion });

  const slots: SlotRequest = {
    key,
    user,
    userLimit: userRule(deps.config, user).maxSessions,
    pools: orderByWeight(match.pools),
  };
  let pool: PoolConfig;
  try {
    pool = await takeSlot(deps, { ...slots, timeoutMs: waitMs, signal: client, label });
  } catch (error) {
    if (!client.aborted) throw error;
    deps.logger.log('SESSION_FAILED', { session: key, user, reason: 'the client went away' });
    throw sessionNotCreated(`cannot create a ${label} session: the client went away`);
  }
  const waitedMs = deps.clock.now() - started;
  const attempt: LaunchAttempt = {
    key,
    user,
    browserName,
    browserVersion,
    capabilities,
    limits,
    // Starting gets the whole new-session timeout, however long the request waited for its slot. The
    // client going away and the deadline both stop the work, and whatever it had started.
    signal: AbortSignal.any([client, AbortSignal.timeout(deps.config.timeouts.newSession)]),
  };
  const created = await launchInPools(deps, agent, pool, slots, attempt);
  if ('failure' in created) {
    deps.logger.log('SESSION_FAILED', { session: key, user, reason: created.failure });
    throw sessionNotCreated(`cannot create a ${label} session: ${created.failure}`);
  }
  const ms = deps.clock.now() - started;
  deps.logger.log('SESSION_CREATED', { session: key, user, pool: created.pool.name, ms, waitedMs });
  return answer(c, deps, basePath, request.protocol, created);
}

type Launched = { pool: PoolConfig; session: CreatedSession } | { failure: string };

/**
 * Launches in the pool whose slot is held; when that fails, frees the slot and tries the remaining pools
 * that have a free slot at once (a pool that failed is not tried again, nor is the queue joined again).
 */
async function launchInPools(
  deps: GridDeps,
  agent: Dispatcher,
  first: PoolConfig,
  slots: SlotRequest,
  attempt: LaunchAttempt,
): Promise<Launched> {
  const failures: string[] = [];
  let pool: PoolConfig | undefined = first;
  let remaining = slots.pools;
  while (pool) {
    try {
      return { pool, session: await launchSession(deps, agent, pool, attempt) };
    } catch (error) {
      await releaseSlot(deps, attempt.key);
      failures.push(`pool ${pool.name}: ${(error as Error).message}`);
    }
    if (attempt.signal.aborted) return { failure: abortReason(attempt.signal, deps) };
    const failed = pool;
    remaining = remaining.filter((p) => p !== failed);
    if (remaining.length === 0) break;
    const next = await trySlot(deps, { ...slots, pools: remaining });
    pool = 'taken' in next ? next.taken : undefined;
    if ('refused' in next) failures.push(next.refused);
  }
  return { failure: failures.join('; ') };
}

function abortReason(signal: AbortSignal, deps: GridDeps): string {
  return (signal.reason as Error)?.name === 'TimeoutError'
    ? `it took longer than ${formatDuration(deps.config.timeouts.newSession)}`
    : 'the client went away';
}

/** The answer, its WebSocket URLs pointing at gridgate; JSON Wire clients read the ID at the top level. */
function answer(
  c: Context,
  deps: GridDeps,
  basePath: string,
  protocol: 'w3c' | 'jsonwire',
  { pool, session }: { pool: PoolConfig; session: CreatedSession },
) {
  const sessionId = session.sessionId;
  const value = {
    ...session,
    capabilities: rewriteWebSocketCapabilities(session.capabilities, {
      base: publicWebSocketBase(c.req.raw, basePath, deps.config.publicUrl),
      token: sessionId,
      servesCdp: pool.kind === 'local',
    }),
  };
  return c.json(protocol === 'jsonwire' ? { sessionId, status: 0, value } : { value });
}
