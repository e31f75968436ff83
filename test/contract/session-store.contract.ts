/**
 * The SessionStore contract: every adapter (memory, DynamoDB) must pass this same suite.
 * Usage: `sessionStoreContract('MemorySessionStore', () => new MemorySessionStore())`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionRecord, SessionStore, SlotClaim } from '../../functions/core/ports';

export interface StoreUnderTest {
  store: SessionStore;
  /** Frees what the store holds (tables, connections); optional. */
  dispose?: () => Promise<void>;
}

export type StoreFactory = () => SessionStore | StoreUnderTest | Promise<SessionStore | StoreUnderTest>;

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

export function sampleRecord(key: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    key,
    user: 'guest',
    pool: 'local',
    browserName: 'chrome',
    browserVersion: '156.0',
    address: '127.0.0.1:9515',
    handle: `handle-${key}`,
    upstreamId: `upstream-${key}`,
    createdAt: T0,
    lastActivityAt: T0,
    idleTimeoutMs: 300_000,
    maxAgeMs: 3_600_000,
    ...overrides,
  };
}

const OK = { ok: true };

/** A claim on a slot in `pool` for `user` (guest unless named), with no user limit unless given. */
function slot(pool: string, poolLimit: number, user = 'guest', userLimit?: number): SlotClaim {
  return userLimit === undefined ? { pool, poolLimit, user } : { pool, poolLimit, user, userLimit };
}

export function sessionStoreContract(name: string, factory: StoreFactory): void {
  describe(`${name} (SessionStore contract)`, () => {
    let store: SessionStore;
    let dispose: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      const made = await factory();
      if ('store' in made) {
        store = made.store;
        dispose = made.dispose;
      } else {
        store = made;
        dispose = undefined;
      }
    });

    afterEach(async () => {
      await dispose?.();
    });

    describe('quota slots', () => {
      it('starts with no slots in use', async () => {
        expect(await store.inUse()).toEqual({});
        expect(await store.inUseByUser()).toEqual({});
      });

      it('gives slots up to the pool’s limit and refuses the next, naming the pool', async () => {
        expect(await store.acquire('a', slot('pool-1', 2))).toEqual(OK);
        expect(await store.acquire('b', slot('pool-1', 2))).toEqual(OK);
        expect(await store.acquire('c', slot('pool-1', 2))).toEqual({ ok: false, full: 'pool', held: 2 });
        expect(await store.inUse()).toEqual({ 'pool-1': 2 });
      });

      it('counts each pool against its own limit', async () => {
        expect(await store.acquire('a', slot('pool-1', 1))).toEqual(OK);
        expect(await store.acquire('b', slot('pool-2', 1))).toEqual(OK);
        expect(await store.acquire('c', slot('pool-2', 1))).toMatchObject({ ok: false, full: 'pool' });
        expect(await store.inUse()).toEqual({ 'pool-1': 1, 'pool-2': 1 });
      });

      it('gives a user slots up to the user’s limit over all pools and refuses the next, naming the user', async () => {
        expect(await store.acquire('a', slot('pool-1', 5, 'alice', 2))).toEqual(OK);
        expect(await store.acquire('b', slot('pool-2', 5, 'alice', 2))).toEqual(OK);
        expect(await store.acquire('c', slot('pool-1', 5, 'alice', 2))).toEqual({
          ok: false,
          full: 'user',
          held: 2,
        });
        expect(await store.inUseByUser()).toEqual({ alice: 2 });
        expect(await store.inUse()).toEqual({ 'pool-1': 1, 'pool-2': 1 });
      });

      it('counts each user against their own limit', async () => {
        expect(await store.acquire('a', slot('pool-1', 5, 'alice', 1))).toEqual(OK);
        expect(await store.acquire('b', slot('pool-1', 5, 'bob', 1))).toEqual(OK);
        expect(await store.acquire('c', slot('pool-1', 5, 'bob', 1))).toMatchObject({ full: 'user' });
        expect(await store.inUseByUser()).toEqual({ alice: 1, bob: 1 });
      });

      it('sets no per-user limit when the claim has none, but still counts the user', async () => {
        for (const key of ['a', 'b', 'c'])
          expect(await store.acquire(key, slot('pool-1', 3, 'alice'))).toEqual(OK);
        expect(await store.acquire('d', slot('pool-1', 3, 'alice'))).toMatchObject({ full: 'pool' });
        expect(await store.inUseByUser()).toEqual({ alice: 3 });
      });

      it('names the user’s limit when both the user and the pool are full', async () => {
        await store.acquire('a', slot('pool-1', 1, 'alice', 1));
        expect(await store.acquire('b', slot('pool-1', 1, 'alice', 1))).toEqual({
          ok: false,
          full: 'user',
          held: 1,
        });
      });

      it('takes nothing when it refuses: a full user leaves the pool’s count alone and the other way round', async () => {
        await store.acquire('a', slot('pool-1', 1, 'alice', 1));
        await store.acquire('b', slot('pool-2', 5, 'alice', 1));
        await store.acquire('c', slot('pool-1', 1, 'bob', 5));
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
        expect(await store.inUseByUser()).toEqual({ alice: 1 });
      });

      it('never gives more slots than the pool’s limit to concurrent callers', async () => {
        const keys = Array.from({ length: 20 }, (_, i) => `key-${i}`);
        const answers = await Promise.all(keys.map((key) => store.acquire(key, slot('pool-1', 3))));
        expect(answers.filter((answer) => answer.ok)).toHaveLength(3);
        expect(await store.inUse()).toEqual({ 'pool-1': 3 });
      });

      it('never gives a user more slots than the user’s limit when callers race across pools', async () => {
        const claims = Array.from({ length: 20 }, (_, i) => slot(`pool-${i % 4}`, 10, 'alice', 3));
        const answers = await Promise.all(claims.map((claim, i) => store.acquire(`key-${i}`, claim)));
        expect(answers.filter((answer) => answer.ok)).toHaveLength(3);
        expect(await store.inUseByUser()).toEqual({ alice: 3 });
      });

      it('keeps every limit when N callers of two users race for M slots in two pools, and frees every slot after', async () => {
        // Pools of 3 bind before users of 4: exactly 6 of the 40 get a slot.
        const claims = Array.from({ length: 40 }, (_, i) =>
          slot(i % 2 ? 'pool-1' : 'pool-2', 3, Math.floor(i / 2) % 2 ? 'alice' : 'bob', 4),
        );
        const keys = claims.map((_, i) => `key-${i}`);
        const answers = await Promise.all(claims.map((claim, i) => store.acquire(keys[i] as string, claim)));
        expect(answers.filter((answer) => answer.ok)).toHaveLength(6);
        expect(await store.inUse()).toEqual({ 'pool-1': 3, 'pool-2': 3 });
        const byUser = await store.inUseByUser();
        expect((byUser.alice ?? 0) + (byUser.bob ?? 0)).toBe(6);
        expect(Math.max(...Object.values(byUser))).toBeLessThanOrEqual(4);
        await Promise.all(keys.map((key) => store.release(key)));
        expect(await store.inUse()).toEqual({});
        expect(await store.inUseByUser()).toEqual({});
      });

      it('is idempotent per key: acquiring again takes no second slot', async () => {
        expect(await store.acquire('a', slot('pool-1', 2, 'alice', 2))).toEqual(OK);
        expect(await store.acquire('a', slot('pool-1', 2, 'alice', 2))).toEqual(OK);
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
        expect(await store.inUseByUser()).toEqual({ alice: 1 });
        expect(await store.acquire('b', slot('pool-1', 2, 'alice', 2))).toEqual(OK);
      });

      it('answers yes to a key that already holds a slot, even when the pool and user are now full', async () => {
        expect(await store.acquire('a', slot('pool-1', 1, 'alice', 1))).toEqual(OK);
        expect(await store.acquire('a', slot('pool-1', 1, 'alice', 1))).toEqual(OK);
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
      });

      it('takes one slot when the same key is acquired concurrently', async () => {
        const answers = await Promise.all(
          Array.from({ length: 5 }, () => store.acquire('a', slot('pool-1', 5, 'alice', 5))),
        );
        expect(answers).toEqual([OK, OK, OK, OK, OK]);
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
        expect(await store.inUseByUser()).toEqual({ alice: 1 });
      });

      it('frees the slot on release, for the pool and the user, so another key can take it', async () => {
        expect(await store.acquire('a', slot('pool-1', 1, 'alice', 1))).toEqual(OK);
        await store.release('a');
        expect(await store.inUse()).toEqual({});
        expect(await store.inUseByUser()).toEqual({});
        expect(await store.acquire('b', slot('pool-1', 1, 'alice', 1))).toEqual(OK);
      });

      it('lets a released key take a slot again, in another pool', async () => {
        await store.acquire('a', slot('pool-1', 1, 'alice', 1));
        await store.release('a');
        expect(await store.acquire('a', slot('pool-2', 1, 'alice', 1))).toEqual(OK);
        expect(await store.inUse()).toEqual({ 'pool-2': 1 });
      });

      it('releases idempotently: a second release frees nobody else’s slot', async () => {
        await store.acquire('a', slot('pool-1', 3, 'alice', 3));
        await store.acquire('b', slot('pool-1', 3, 'alice', 3));
        await store.release('a');
        await store.release('a');
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
        expect(await store.inUseByUser()).toEqual({ alice: 1 });
        expect(await store.acquire('c', slot('pool-1', 2))).toEqual(OK);
        expect(await store.acquire('d', slot('pool-1', 2))).toMatchObject({ ok: false });
      });

      it('releases a key that never held a slot without error', async () => {
        await store.acquire('a', slot('pool-1', 1));
        await expect(store.release('never')).resolves.toBeUndefined();
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
      });

      it('frees exactly one slot when the same key is released concurrently', async () => {
        await store.acquire('a', slot('pool-1', 3, 'alice'));
        await store.acquire('b', slot('pool-1', 3, 'alice'));
        await Promise.all([store.release('a'), store.release('a'), store.release('a')]);
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
        expect(await store.inUseByUser()).toEqual({ alice: 1 });
      });

      it('never exceeds the limits when acquires and releases interleave', async () => {
        await Promise.all(['a', 'b'].map((key) => store.acquire(key, slot('pool-1', 2, 'alice', 2))));
        const racing = Array.from({ length: 10 }, (_, i) =>
          store.acquire(`n-${i}`, slot('pool-1', 2, 'alice', 2)),
        );
        const answers = await Promise.all([...racing, store.release('a'), store.release('b')]);
        expect(answers.slice(0, 10).filter((answer) => answer?.ok).length).toBeLessThanOrEqual(2);
        expect((await store.inUse())['pool-1'] ?? 0).toBeLessThanOrEqual(2);
        expect((await store.inUseByUser()).alice ?? 0).toBeLessThanOrEqual(2);
      });
    });

    describe('listing held slots', () => {
      it('lists every slot held, by key, with its pool, user and when it was taken', async () => {
        await store.acquire('s1', slot('pool-a', 5, 'alice'));
        await store.acquire('s2', slot('pool-b', 5, 'bob'));
        await store.acquire('s3', slot('pool-a', 5, 'bob'));
        await store.release('s3');
        const held = (await store.slots()).sort((a, b) => a.key.localeCompare(b.key));
        expect(held.map(({ key, pool, user }) => ({ key, pool, user }))).toEqual([
          { key: 's1', pool: 'pool-a', user: 'alice' },
          { key: 's2', pool: 'pool-b', user: 'bob' },
        ]);
        for (const { acquiredAt } of held) expect(Number.isFinite(acquiredAt) && acquiredAt > 0).toBe(true);
      });

      it('lists nothing when no slot is held', async () => {
        expect(await store.slots()).toEqual([]);
      });
    });

    describe('creation stages', () => {
      const stageOf = async (key: string) => {
        const held = (await store.slots()).find((s) => s.key === key);
        return held && { stage: held.stage, stageAt: held.stageAt };
      };

      it('lists a slot just taken without a stage, then the stage marked on it and since when', async () => {
        await store.acquire('s1', slot('pool-a', 5, 'alice'));
        expect(await stageOf('s1')).toEqual({ stage: undefined, stageAt: undefined });
        await store.markStage('s1', 'launch', T0 + 1000);
        await store.markStage('s1', 'pull', T0 + 2000);
        expect(await stageOf('s1')).toEqual({ stage: 'pull', stageAt: T0 + 2000 });
      });

      it('only moves forward: a late or repeated mark changes nothing', async () => {
        await store.acquire('s1', slot('pool-a', 5));
        await store.markStage('s1', 'driver', T0 + 3000);
        await store.markStage('s1', 'launch', T0 + 4000);
        await store.markStage('s1', 'driver', T0 + 5000);
        expect(await stageOf('s1')).toEqual({ stage: 'driver', stageAt: T0 + 3000 });
        await store.markStage('s1', 'session', T0 + 6000);
        expect(await stageOf('s1')).toEqual({ stage: 'session', stageAt: T0 + 6000 });
      });

      it('ignores a key without a slot, and a slot taken again starts without a stage', async () => {
        await expect(store.markStage('nope', 'launch', T0)).resolves.toBeUndefined();
        expect(await store.slots()).toEqual([]);
        await store.acquire('s1', slot('pool-a', 5));
        await store.markStage('s1', 'pull', T0);
        await store.release('s1');
        await store.markStage('s1', 'driver', T0 + 1000); // a launcher still reporting after the release
        expect(await store.slots()).toEqual([]);
        await store.acquire('s1', slot('pool-b', 5));
        expect(await stageOf('s1')).toEqual({ stage: undefined, stageAt: undefined });
      });
    });

    describe('session records', () => {
      it('gives back an added record', async () => {
        await store.add(sampleRecord('s1'));
        expect(await store.get('s1')).toEqual(sampleRecord('s1'));
      });

      it('answers undefined for an unknown key', async () => {
        expect(await store.get('nope')).toBeUndefined();
      });

      it('keeps its own copy of a record', async () => {
        const record = sampleRecord('s1');
        await store.add(record);
        record.user = 'mallory';
        const read = await store.get('s1');
        if (read) read.pool = 'elsewhere';
        expect(await store.get('s1')).toEqual(sampleRecord('s1'));
      });

      it('lists running sessions', async () => {
        await store.add(sampleRecord('s1'));
        await store.add(sampleRecord('s2'));
        expect((await store.running()).map((r) => r.key).sort()).toEqual(['s1', 's2']);
      });

      it('notes activity with touch', async () => {
        await store.add(sampleRecord('s1'));
        store.touch('s1', T0 + 42_000);
        await expect.poll(async () => (await store.get('s1'))?.lastActivityAt).toBe(T0 + 42_000);
      });

      it('gives back every field of a record, running and once ended', async () => {
        // Required: a field SessionRecord gains fails the typecheck here until this test gives it too.
        const record: Required<Omit<SessionRecord, 'endedAt' | 'endReason'>> = {
          ...sampleRecord('s1'),
          color: 'green',
          commands: 2,
          lastCommand: 'POST /url',
          billing: { billedFrom: T0 - 5000, capacity: 'spot', vcpu: 1, memoryGb: 2, architecture: 'x86_64' },
          name: 'checkout works',
          head: 'head-a',
        };
        await store.add(record);
        expect(await store.get('s1')).toStrictEqual(record);
        expect(await store.running()).toStrictEqual([record]);
        const ended: SessionRecord = { ...record, endedAt: T0 + 1000, endReason: 'deleted' };
        expect(await store.end('s1', 'deleted', T0 + 1000)).toStrictEqual(ended);
        expect(await store.get('s1')).toStrictEqual(ended);
      });

      it('ignores touch for an unknown key', async () => {
        expect(() => store.touch('nope', T0)).not.toThrow();
        expect(() => store.touch('nope', T0, 'POST', '/url')).not.toThrow();
        expect(await store.get('nope')).toBeUndefined();
      });

      it('starts a session with no commands counted', async () => {
        await store.add(sampleRecord('s1'));
        const record = await store.get('s1');
        expect(record?.commands ?? 0).toBe(0);
        expect(record?.lastCommand).toBeUndefined();
      });

      it('counts a command and names it by its method and path template, without the IDs', async () => {
        await store.add(sampleRecord('s1'));
        store.touch('s1', T0 + 1000, 'POST', '/element/5f1e-c0de/click');
        await expect
          .poll(async () => {
            const record = await store.get('s1');
            return { commands: record?.commands, lastCommand: record?.lastCommand };
          })
          .toEqual({ commands: 1, lastCommand: 'POST /element/{id}/click' });
        expect((await store.running())[0]).toMatchObject({
          commands: 1,
          lastCommand: 'POST /element/{id}/click',
        });
      });

      it('does not count activity that is not a command', async () => {
        await store.add(sampleRecord('s1'));
        store.touch('s1', T0 + 1000);
        await expect.poll(async () => (await store.get('s1'))?.lastActivityAt).toBe(T0 + 1000);
        expect((await store.get('s1'))?.commands ?? 0).toBe(0);
      });

      it('ends a session with every command this store counted, and its last one', async () => {
        await store.add(sampleRecord('s1'));
        store.touch('s1', T0 + 1000, 'POST', '/url');
        await expect.poll(async () => (await store.get('s1'))?.commands).toBe(1);
        store.touch('s1', T0 + 2000, 'GET', '/title');
        store.touch('s1', T0 + 3000, 'DELETE', '');
        const ended = await store.end('s1', 'deleted', T0 + 4000);
        expect(ended).toMatchObject({ commands: 3, lastCommand: 'DELETE session' });
        expect(await store.get('s1')).toMatchObject({ commands: 3, lastCommand: 'DELETE session' });
      });
    });

    describe('ending sessions', () => {
      it('returns the ended record, with when and why, to the caller that ended it', async () => {
        await store.add(sampleRecord('s1'));
        expect(await store.end('s1', 'deleted', T0 + 1000)).toEqual({
          ...sampleRecord('s1'),
          endedAt: T0 + 1000,
          endReason: 'deleted',
        });
      });

      it('returns the record only to the first caller', async () => {
        await store.add(sampleRecord('s1'));
        expect(await store.end('s1', 'deleted', T0 + 1000)).toBeDefined();
        expect(await store.end('s1', 'idle timeout', T0 + 2000)).toBeUndefined();
        expect(await store.get('s1')).toMatchObject({ endReason: 'deleted', endedAt: T0 + 1000 });
      });

      it('returns the record to exactly one of several concurrent callers', async () => {
        await store.add(sampleRecord('s1'));
        const results = await Promise.all([
          store.end('s1', 'deleted', T0 + 1),
          store.end('s1', 'idle timeout', T0 + 2),
          store.end('s1', 'max age', T0 + 3),
          store.end('s1', 'browser exited', T0 + 4),
        ]);
        const winners = results.filter((r) => r !== undefined);
        expect(winners).toHaveLength(1);
        expect((await store.get('s1'))?.endReason).toBe(winners[0]?.endReason);
      });

      it('returns undefined when ending an unknown session', async () => {
        expect(await store.end('nope', 'deleted', T0)).toBeUndefined();
      });

      it('no longer lists an ended session as running but still tells why it ended', async () => {
        await store.add(sampleRecord('s1'));
        await store.add(sampleRecord('s2'));
        await store.end('s1', 'idle timeout', T0 + 1000);
        expect((await store.running()).map((r) => r.key)).toEqual(['s2']);
        expect(await store.get('s1')).toMatchObject({ key: 's1', endReason: 'idle timeout' });
      });

      it('leaves slots alone: ending and releasing are separate', async () => {
        await store.acquire('s1', slot('local', 2));
        await store.add(sampleRecord('s1'));
        await store.end('s1', 'deleted', T0 + 1000);
        expect(await store.inUse()).toEqual({ local: 1 });
      });
    });

    describe('reclaimed browsers', () => {
      it('knows nothing of a handle never marked', async () => {
        expect(await store.reclaimed('task-1')).toBeUndefined();
      });

      it('tells when and why a browser was reclaimed, by its handle', async () => {
        await store.add(sampleRecord('s1', { handle: 'task-1' }));
        await store.markReclaimed('task-1', { at: T0 + 5000, reason: 'SpotInterruption' });
        expect(await store.reclaimed('task-1')).toEqual({ at: T0 + 5000, reason: 'SpotInterruption' });
        expect(await store.reclaimed('task-2')).toBeUndefined();
      });

      it('marks a handle whose session it has no record of (the event may come first)', async () => {
        await store.markReclaimed('task-9', { at: T0, reason: 'TerminationNotice' });
        expect(await store.reclaimed('task-9')).toEqual({ at: T0, reason: 'TerminationNotice' });
      });

      it('keeps the latest mark when a handle is marked twice', async () => {
        await store.markReclaimed('task-1', { at: T0, reason: 'TerminationNotice' });
        await store.markReclaimed('task-1', { at: T0 + 1000, reason: 'SpotInterruption' });
        expect(await store.reclaimed('task-1')).toEqual({ at: T0 + 1000, reason: 'SpotInterruption' });
      });
    });
  });
}
