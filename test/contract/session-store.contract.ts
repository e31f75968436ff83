/**
 * The SessionStore contract: every adapter (memory, DynamoDB) must pass this same suite.
 * Usage: `sessionStoreContract('MemorySessionStore', () => new MemorySessionStore())`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionRecord, SessionStore } from '../../functions/core/ports';

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
      });

      it('gives slots up to the limit and refuses the next', async () => {
        expect(await store.acquire('a', 'pool-1', 2)).toBe(true);
        expect(await store.acquire('b', 'pool-1', 2)).toBe(true);
        expect(await store.acquire('c', 'pool-1', 2)).toBe(false);
        expect(await store.inUse()).toEqual({ 'pool-1': 2 });
      });

      it('counts each pool against its own limit', async () => {
        expect(await store.acquire('a', 'pool-1', 1)).toBe(true);
        expect(await store.acquire('b', 'pool-2', 1)).toBe(true);
        expect(await store.acquire('c', 'pool-2', 1)).toBe(false);
        expect(await store.inUse()).toEqual({ 'pool-1': 1, 'pool-2': 1 });
      });

      it('never gives more slots than the limit to concurrent callers', async () => {
        const keys = Array.from({ length: 20 }, (_, i) => `key-${i}`);
        const granted = await Promise.all(keys.map((key) => store.acquire(key, 'pool-1', 3)));
        expect(granted.filter(Boolean)).toHaveLength(3);
        expect(await store.inUse()).toEqual({ 'pool-1': 3 });
      });

      it('is idempotent per key: acquiring again takes no second slot', async () => {
        expect(await store.acquire('a', 'pool-1', 2)).toBe(true);
        expect(await store.acquire('a', 'pool-1', 2)).toBe(true);
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
        expect(await store.acquire('b', 'pool-1', 2)).toBe(true);
      });

      it('answers yes to a key that already holds a slot, even when the pool is now full', async () => {
        expect(await store.acquire('a', 'pool-1', 1)).toBe(true);
        expect(await store.acquire('a', 'pool-1', 1)).toBe(true);
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
      });

      it('takes one slot when the same key is acquired concurrently', async () => {
        const granted = await Promise.all(Array.from({ length: 5 }, () => store.acquire('a', 'pool-1', 5)));
        expect(granted).toEqual([true, true, true, true, true]);
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
      });

      it('frees a slot on release so another key can take it', async () => {
        expect(await store.acquire('a', 'pool-1', 1)).toBe(true);
        await store.release('a');
        expect(await store.inUse()).toEqual({});
        expect(await store.acquire('b', 'pool-1', 1)).toBe(true);
      });

      it('releases idempotently: a second release frees nobody else’s slot', async () => {
        await store.acquire('a', 'pool-1', 3);
        await store.acquire('b', 'pool-1', 3);
        await store.release('a');
        await store.release('a');
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
        expect(await store.acquire('c', 'pool-1', 2)).toBe(true);
        expect(await store.acquire('d', 'pool-1', 2)).toBe(false);
      });

      it('releases a key that never held a slot without error', async () => {
        await store.acquire('a', 'pool-1', 1);
        await expect(store.release('never')).resolves.toBeUndefined();
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
      });

      it('frees exactly one slot when the same key is released concurrently', async () => {
        await store.acquire('a', 'pool-1', 3);
        await store.acquire('b', 'pool-1', 3);
        await Promise.all([store.release('a'), store.release('a'), store.release('a')]);
        expect(await store.inUse()).toEqual({ 'pool-1': 1 });
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

      it('ignores touch for an unknown key', async () => {
        expect(() => store.touch('nope', T0)).not.toThrow();
        expect(await store.get('nope')).toBeUndefined();
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
        await store.acquire('s1', 'local', 2);
        await store.add(sampleRecord('s1'));
        await store.end('s1', 'deleted', T0 + 1000);
        expect(await store.inUse()).toEqual({ local: 1 });
      });
    });
  });
}
