/**
 * What the status page shows, read from what the grid already keeps (the store's session records, the
 * slot queue, the config) and filtered by who asks: people see their own sessions, admins everyone's.
 */
import { formatDuration } from '../../core/duration';
import { invalidSessionId } from '../../core/errors';
import { type GridDeps, poolsNamed } from '../../core/grid-deps';
import type { SessionRecord } from '../../core/ports';
import { pricesFor } from '../../core/prices';
import { NO_REQUEST_FEES, sessionCost } from '../../core/session-cost';
import { gridStatus } from '../grid-info';
import type { RecentFailures } from './recent-failures';
import type {
  Overview,
  PageHeader,
  PoolView,
  SessionDetail,
  SessionEvent,
  SessionView,
  StartingView,
  Viewer,
} from './ui-views';

export function pageHeader(deps: GridDeps, viewer: Viewer, startedAt: number): PageHeader {
  const now = deps.clock.now();
  return { version: deps.version, uptime: formatDuration(now - startedAt), now, viewer };
}

/** gridgate's own session keys (short hex names); a WebDriver session ID is longer. */
export const SESSION_KEY = /^[A-Za-z0-9_-]{1,64}$/;

export function canSee(viewer: Viewer, record: Pick<SessionRecord, 'user'>): boolean {
  return viewer.admin || record.user === viewer.user;
}

export async function overview(
  deps: GridDeps,
  viewer: Viewer,
  startedAt: number,
  failures: RecentFailures,
): Promise<Overview> {
  const { now } = pageHeader(deps, viewer, startedAt);
  const [status, running, slots] = await Promise.all([
    gridStatus(deps),
    deps.sessions.running(),
    deps.sessions.slots(),
  ]);
  const pools = status.value.pools.map(
    (pool): PoolView => ({
      name: pool.name,
      kind: pool.kind,
      ...(pool.region ? { region: pool.region } : {}),
      ...(pool.color ? { color: pool.color } : {}),
      capacity: pool.maxSessions,
      inUse: pool.inUse,
      queued: pool.waiting,
      // /status leaves `warm` out both for kinds that keep none (0 here) and for a count it could not read
      // (left out here too: the page shows it blank).
      warm: pool.warm ?? (deps.runtimes[pool.kind]?.warm ? undefined : 0),
    }),
  );
  const sessions = running
    .filter((record) => canSee(viewer, record))
    .sort((a, b) => a.createdAt - b.createdAt || a.key.localeCompare(b.key))
    .map((record) => sessionView(deps, record, now));
  // A slot without a running session is one being started: the store says so, no new state needed.
  const live = new Set(running.map((record) => record.key));
  const starting = slots
    .filter((slot) => !live.has(slot.key) && canSee(viewer, slot))
    .sort((a, b) => a.acquiredAt - b.acquiredAt)
    .map(
      ({ key, user, pool, acquiredAt, stage, stageAt }): StartingView => ({
        key,
        user,
        pool,
        ageMs: Math.max(0, now - acquiredAt),
        ...(stage ? { stage, stageMs: Math.max(0, now - (stageAt ?? acquiredAt)) } : {}),
      }),
    );
  return {
    ...pageHeader(deps, viewer, startedAt),
    pools,
    sessions,
    starting,
    failures: failures.list().filter((failure) => canSee(viewer, failure)),
  };
}

/**
 * The session of that key if the viewer may see it. Someone else's session gets the same answer as an
 * unknown key, so the page tells nobody which keys exist.
 */
export async function visibleSession(deps: GridDeps, viewer: Viewer, key: string): Promise<SessionRecord> {
  // Keys are gridgate's own short hex names: anything else is not looked up in the store at all.
  if (!SESSION_KEY.test(key)) throw invalidSessionId('no such session: not a session key');
  const record = await deps.sessions.get(key);
  if (!record || !canSee(viewer, record)) throw invalidSessionId(`no such session: ${key}`);
  return record;
}

export function sessionView(deps: GridDeps, record: SessionRecord, now: number): SessionView {
  const end = record.endedAt ?? now;
  // The colour the session was asked with; records from before colours were kept show their pool's.
  const color = record.color ?? poolsNamed(deps, record.pool)[0]?.color;
  return {
    key: record.key,
    user: record.user,
    browserName: record.browserName,
    browserVersion: record.browserVersion,
    pool: record.pool,
    ...(color ? { color } : {}),
    state: record.endedAt === undefined ? 'running' : 'ended',
    createdAt: record.createdAt,
    ageMs: end - record.createdAt,
    idleMs: Math.max(0, end - record.lastActivityAt),
    idleTimeoutMs: record.idleTimeoutMs,
    maxAgeMs: record.maxAgeMs,
    lastActivityAt: record.lastActivityAt,
    ...(record.endedAt !== undefined ? { endedAt: record.endedAt } : {}),
    ...(record.endReason ? { endReason: record.endReason } : {}),
    commands: record.commands ?? 0,
    ...(record.lastCommand ? { lastCommand: record.lastCommand } : {}),
    ...(record.name ? { name: record.name } : {}),
    protocol: record.protocol ?? 'webdriver',
    ...(record.result ? { result: record.result } : {}),
    ...(record.build ? { build: record.build } : {}),
    ...(record.project ? { project: record.project } : {}),
    ...(record.labels ? { labels: record.labels } : {}),
    ...costOf(deps, record, now),
  };
}

function costOf(deps: GridDeps, record: SessionRecord, now: number): Pick<SessionView, 'cost'> {
  const cost = sessionCost(
    { ...record, endedAt: record.endedAt ?? now },
    pricesFor(deps.config.prices),
    deps.requestPricing ?? NO_REQUEST_FEES,
  );
  if (!cost) return {};
  const { dollars, billedSeconds, capacity } = cost;
  return { cost: { dollars, billedSeconds, capacity, final: record.endedAt !== undefined } };
}

function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function sessionDetail(
  deps: GridDeps,
  record: SessionRecord,
  now: number,
  vnc?: { password: string },
): SessionDetail {
  const events: SessionEvent[] = [{ at: record.createdAt, what: 'created' }];
  const commands = record.commands ?? 0;
  if (record.lastActivityAt > record.createdAt || commands > 0) {
    // Activity without a counted command: WebSocket traffic (BiDi, CDP), or a record from before counts.
    const what = record.lastCommand
      ? `last command: ${record.lastCommand} (${countOf(commands, 'command')} in all)`
      : 'last activity';
    events.push({ at: record.lastActivityAt, what });
  }
  if (record.endedAt === undefined) {
    events.push({
      at: record.lastActivityAt + record.idleTimeoutMs,
      what: `idle timeout, if ${formatDuration(record.idleTimeoutMs)} pass without a command`,
    });
    events.push({
      at: record.createdAt + record.maxAgeMs,
      what: `maximum age (${formatDuration(record.maxAgeMs)})`,
    });
  } else {
    events.push({ at: record.endedAt, what: `ended: ${record.endReason ?? 'unknown reason'}` });
  }
  return {
    ...sessionView(deps, record, now),
    poolKind: poolsNamed(deps, record.pool)[0]?.kind,
    events: events.sort((a, b) => a.at - b.at),
    ...(vnc ? { vnc } : {}),
  };
}
