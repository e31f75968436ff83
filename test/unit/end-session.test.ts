import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { parseConfig } from '../../functions/core/config';
import { EndedSessions } from '../../functions/core/ended-sessions';
import type { GridDeps } from '../../functions/core/grid-deps';
import type { SessionRecord } from '../../functions/core/ports';
import { SessionTokens } from '../../functions/core/session-token';
import { SlotQueue } from '../../functions/core/slot-queue';
import { POOL_TRAITS } from '../../functions/pools';
import { endSession } from '../../functions/use-cases/end-session';
import { endAllSessions, expireSessions } from '../../functions/use-cases/expire-sessions';
import { sampleRecord } from '../contract/store-samples';
import { CollectingLogger, FakeLauncher, FixedClock } from '../support/fakes';

function setup() {
  const clock = new FixedClock();
  const launcher = new FakeLauncher();
  const sessions = new MemorySessionStore();
  const logger = new CollectingLogger();
  const deps: GridDeps = {
    config: parseConfig({}, { builtInBrowserVersion: '156.0' }),
    runtimes: { local: { launcher } },
    poolTraits: POOL_TRAITS,
    sessions,
    queue: new SlotQueue(),
    ended: new EndedSessions(),
    tokens: new SessionTokens(Buffer.alloc(32, 1)),
    logger,
    clock,
    version: 'test',
  };
  /** A running session created now, holding a slot in the local pool. */
  async function running(key: string, limits: Partial<SessionRecord> = {}): Promise<SessionRecord> {
    const record = sampleRecord(key, {
      createdAt: clock.now(),
      lastActivityAt: clock.now(),
      idleTimeoutMs: 60_000,
      maxAgeMs: 600_000,
      ...limits,
    });
    expect(await sessions.acquire(key, { pool: 'local', poolLimit: 4, user: 'guest' })).toEqual({ ok: true });
    await sessions.add(record);
    return record;
  }
  return { deps, clock, launcher, sessions, logger, running };
}

describe('endSession', () => {
  it('stops the browser, frees the slot and returns the ended record', async () => {
    const { deps, launcher, sessions, clock, logger, running } = setup();
    const record = await running('s1');
    clock.advance(5000);
    const ended = await endSession(deps, record, 'deleted');
    expect(ended).toMatchObject({ key: 's1', endReason: 'deleted', endedAt: clock.now() });
    expect(launcher.stops).toEqual(['handle-s1']);
    expect(await sessions.inUse()).toEqual({});
    expect(await sessions.running()).toEqual([]);
    expect(logger.fieldsOf('SESSION_DELETED')).toEqual([
      { session: 's1', user: 'guest', pool: 'local', reason: 'deleted', result: 'unknown', durationMs: 5000 },
    ]);
  });

  it('ends a session once when two callers end it at the same time', async () => {
    const { deps, sessions, logger, running } = setup();
    const record = await running('s1');
    const other = await running('s2');
    const results = await Promise.all([
      endSession(deps, record, 'deleted'),
      endSession(deps, record, 'idle timeout'),
    ]);
    expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    expect(
      logger.events().filter((event) => event === 'SESSION_DELETED' || event === 'SESSION_TIMED_OUT'),
    ).toHaveLength(1);
    // The second call frees nothing more: the other session keeps its slot.
    expect(await sessions.inUse()).toEqual({ local: 1 });
    expect((await sessions.running()).map((r) => r.key)).toEqual([other.key]);
  });

  it('stops the browser and frees the slot even without a record (another head created the session)', async () => {
    const { deps, launcher, sessions } = setup();
    expect(await sessions.acquire('orphan', { pool: 'local', poolLimit: 4, user: 'guest' })).toEqual({
      ok: true,
    });
    expect(
      await endSession(
        deps,
        { key: 'orphan', pool: 'local', handle: 'h-orphan', upstreamId: 'u-orphan' },
        'deleted',
      ),
    ).toBeUndefined();
    expect(launcher.stops).toEqual(['h-orphan']);
    expect(await sessions.inUse()).toEqual({});
  });

  it('frees the slot and logs when stopping the browser fails', async () => {
    const { deps, launcher, sessions, logger, running } = setup();
    launcher.stop = async (handle) => {
      throw new Error(`cannot stop ${handle}`);
    };
    const record = await running('s1');
    expect(await endSession(deps, record, 'deleted')).toBeDefined();
    expect(await sessions.inUse()).toEqual({});
    expect(logger.fieldsOf('BROWSER_STOP_FAILED')).toEqual([
      { session: 's1', pool: 'local', handle: 'handle-s1', error: 'Error: cannot stop handle-s1' },
    ]);
  });

  it('stops the browser and frees the slot when the store fails to end the record, then says so', async () => {
    const { deps, launcher, sessions, running } = setup();
    const record = await running('s1');
    const refused = new Error('the store is unavailable');
    sessions.end = async () => {
      throw refused;
    };
    await expect(endSession(deps, record, 'deleted')).rejects.toBe(refused);
    expect(launcher.stops).toEqual(['handle-s1']);
    expect(await sessions.inUse()).toEqual({});
    expect(deps.ended.recall('s1')).toMatchObject({ reason: 'deleted' });
  });

  it('still frees the slot when the pool is no longer configured', async () => {
    const { deps, launcher, sessions } = setup();
    await sessions.acquire('gone', { pool: 'removed-pool', poolLimit: 1, user: 'guest' });
    await endSession(deps, { key: 'gone', pool: 'removed-pool', handle: 'h', upstreamId: 'u' }, 'deleted');
    expect(launcher.stops).toEqual([]);
    expect(await sessions.inUse()).toEqual({});
  });
});

describe('expireSessions', () => {
  it('ends a session idle for its idle timeout, and not a moment before', async () => {
    const { deps, clock, launcher, sessions, running } = setup();
    await running('s1');
    clock.advance(59_999);
    expect(await expireSessions(deps)).toBe(0);
    expect(launcher.stops).toEqual([]);
    clock.advance(1);
    expect(await expireSessions(deps)).toBe(1);
    expect(launcher.stops).toEqual(['handle-s1']);
    expect((await sessions.get('s1'))?.endReason).toBe('idle timeout');
    expect(await sessions.inUse()).toEqual({});
  });

  it('keeps a session that was used recently', async () => {
    const { deps, clock, sessions, running } = setup();
    await running('s1');
    clock.advance(50_000);
    sessions.touch('s1', clock.now());
    clock.advance(50_000);
    expect(await expireSessions(deps)).toBe(0);
    expect((await sessions.running()).map((r) => r.key)).toEqual(['s1']);
  });

  it('ends a busy session at its maximum age, whatever its activity', async () => {
    const { deps, clock, sessions, logger, running } = setup();
    await running('s1');
    for (let elapsed = 0; elapsed < 600_000; elapsed += 30_000) {
      clock.advance(30_000);
      sessions.touch('s1', clock.now());
      if (elapsed + 30_000 < 600_000) expect(await expireSessions(deps)).toBe(0);
    }
    expect(await expireSessions(deps)).toBe(1);
    expect((await sessions.get('s1'))?.endReason).toBe('max age');
    expect(logger.fieldsOf('SESSION_TIMED_OUT')).toEqual([expect.objectContaining({ reason: 'max age' })]);
  });

  it('calls it max age when a session is both idle and too old', async () => {
    const { deps, clock, sessions, running } = setup();
    await running('s1', { idleTimeoutMs: 60_000, maxAgeMs: 60_000 });
    clock.advance(60_000);
    await expireSessions(deps);
    expect((await sessions.get('s1'))?.endReason).toBe('max age');
  });

  it('ends only the sessions that expired', async () => {
    const { deps, clock, sessions, launcher, running } = setup();
    await running('old', { idleTimeoutMs: 10_000 });
    clock.advance(5_000);
    await running('young', { idleTimeoutMs: 10_000 });
    clock.advance(5_000);
    expect(await expireSessions(deps)).toBe(1);
    expect(launcher.stops).toEqual(['handle-old']);
    expect(await sessions.inUse()).toEqual({ local: 1 });
  });

  it('ends an expired session once, stopping its browser and freeing its slot once, however often it runs', async () => {
    const { deps, clock, sessions, launcher, logger, running } = setup();
    await running('s1');
    await running('s2', { idleTimeoutMs: 3_600_000 });
    clock.advance(60_000);
    const counts = await Promise.all([expireSessions(deps), expireSessions(deps)]);
    expect(await expireSessions(deps)).toBe(0);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(logger.fieldsOf('SESSION_TIMED_OUT')).toHaveLength(1);
    expect(new Set(launcher.stops)).toEqual(new Set(['handle-s1']));
    expect(await sessions.inUse()).toEqual({ local: 1 });
  });
});

describe('expireSessions with what the process knows of browsers', () => {
  it('ends at once a session of its own whose browser is gone, for why it went, and leaves those it may not end', async () => {
    const { deps, sessions, launcher, logger, running } = setup();
    await running('gone');
    await running('not-mine');
    await running('alive');
    const scope = {
      mine: (record: SessionRecord) => record.key !== 'not-mine',
      gone: (record: SessionRecord) => (record.key === 'alive' ? undefined : ('creation failed' as const)),
    };
    expect(await expireSessions(deps, scope)).toBe(1);
    expect((await sessions.get('gone'))?.endReason).toBe('creation failed');
    expect(launcher.stops).toEqual(['handle-gone']);
    expect((await sessions.running()).map((record) => record.key).sort()).toEqual(['alive', 'not-mine']);
    expect(await sessions.inUse()).toEqual({ local: 2 });
    expect(logger.fieldsOf('SESSION_ENDED')).toEqual([
      expect.objectContaining({ session: 'gone', reason: 'creation failed' }),
    ]);
  });
});

describe('endAllSessions', () => {
  it('ends every running session with the reason given', async () => {
    const { deps, sessions, launcher, running } = setup();
    await running('s1');
    await running('s2');
    await endAllSessions(deps, 'server shutdown');
    expect(launcher.stops.sort()).toEqual(['handle-s1', 'handle-s2']);
    expect(await sessions.running()).toEqual([]);
    expect(await sessions.inUse()).toEqual({});
    expect((await sessions.get('s2'))?.endReason).toBe('server shutdown');
  });
});

describe('freeing slots', () => {
  it('wakes the queue when a session ends, so a waiting request can take the slot', async () => {
    const { deps, running } = setup();
    const record = await running('s1');
    let notified = 0;
    deps.queue.notify = () => {
      notified++;
    };
    await endSession(deps, record, 'idle timeout');
    expect(notified).toBe(1);
  });

  it('frees a user’s slot once however many causes end the session together', async () => {
    const { deps, sessions, running } = setup();
    const record = await running('s1');
    await running('s2');
    await Promise.all([
      endSession(deps, record, 'deleted'),
      endSession(deps, record, 'idle timeout'),
      endSession(deps, record, 'browser exited'),
    ]);
    expect(await sessions.inUseByUser()).toEqual({ guest: 1 });
    expect(await sessions.inUse()).toEqual({ local: 1 });
  });
});
