/**
 * The SessionStore contract's quota slots (SlotLedger in core/ports.ts): the pool's and the user's limits
 * held under concurrent callers, taking and giving back idempotent per key, the held slots listed, and
 * the creation stage marked on each.
 */
import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../functions/core/ports';
import { slot, T0 } from './store-samples';
import { freshStoreEachTest, type StoreFactory } from './store-under-test';

const OK = { ok: true };

export function slotLedgerContract(factory: StoreFactory): void {
  describe('quota slots', () => {
    let store: SessionStore;
    freshStoreEachTest(factory, (made) => {
      store = made;
    });

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
  });
}
