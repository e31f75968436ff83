/**
 * The WarmTaskStore contract (core/warm-task-store.ts): the DynamoDB store and the memory one unit tests
 * use must both pass this same suite, so a test double cannot drift from the store it stands for.
 * Usage: `warmTaskStoreContract('MemoryWarmTasks', () => { const s = new MemoryWarmTasks(); return { store: s, another: () => s }; })`.
 */
import { describe, expect, it } from 'vitest';
import type { WarmTask, WarmTaskStore } from '../../functions/core/warm-task-store';

export interface WarmStoresUnderTest {
  store: WarmTaskStore;
  /** Another handle on the same tasks, as a second router has (its own client on the same table). */
  another(): WarmTaskStore;
}

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

export function idleTask(taskId: string, pool = 'fargate'): WarmTask {
  return {
    pool,
    taskId,
    taskArn: `arn:aws:ecs:us-east-1:123456789012:task/browsers/${taskId}`,
    address: '10.0.1.20:4444',
    startedAt: T0 - 60_000,
    readyAt: T0 - 5000,
    state: 'idle',
  };
}

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);

export function warmTaskStoreContract(
  name: string,
  make: () => WarmStoresUnderTest | Promise<WarmStoresUnderTest>,
) {
  describe(`${name} (WarmTaskStore contract)`, () => {
    it('registers an idle task once and lists it under its pool only', async () => {
      const { store } = await make();
      expect(await store.register(idleTask(A))).toBe(true);
      expect(await store.register({ ...idleTask(A), address: '10.0.9.9:4444' })).toBe(false);
      expect(await store.list('fargate')).toEqual([idleTask(A)]);
      expect(await store.list('other')).toEqual([]);
    });

    it('gives an idle task to one claim, marked with the claiming session', async () => {
      const { store } = await make();
      await store.register(idleTask(A));
      const claimed = await store.claim('fargate', { key: 'session-1', at: T0 });
      expect(claimed).toEqual({ ...idleTask(A), state: 'claimed', session: 'session-1', claimedAt: T0 });
      expect(await store.claim('fargate', { key: 'session-2', at: T0 })).toBeUndefined();
      expect(await store.list('fargate')).toEqual([claimed]);
    });

    it('claims only tasks of the pool asked for', async () => {
      const { store } = await make();
      await store.register(idleTask(A, 'other'));
      expect(await store.claim('fargate', { key: 'session-1', at: T0 })).toBeUndefined();
      expect(await store.list('other')).toEqual([idleTask(A, 'other')]);
    });

    it('gives a resent claim of the same session the same task again', async () => {
      const { store } = await make();
      await store.register(idleTask(A));
      await store.register(idleTask(B));
      const first = await store.claim('fargate', { key: 'session-1', at: T0 });
      const again = await store.claim('fargate', { key: 'session-1', at: T0 + 10 });
      expect(again?.taskId).toBe(first?.taskId);
      expect((await store.list('fargate')).filter((task) => task.state === 'idle')).toHaveLength(1);
    });

    it('never gives one task to two routers claiming at once', async () => {
      const { store, another } = await make();
      const second = another();
      await store.register(idleTask(A));
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? store : second).claim('fargate', { key: `session-${i}`, at: T0 }),
        ),
      );
      const winners = claims.filter((claim) => claim !== undefined);
      expect(winners).toHaveLength(1);
      const [stored] = await store.list('fargate');
      expect(stored?.session).toBe(winners[0]?.session);
    });

    it('gives each of several concurrent claims a different task while idle ones last', async () => {
      const { store, another } = await make();
      for (const id of ['a', 'b', 'c']) await store.register(idleTask(id.repeat(32)));
      const claims = await Promise.all(
        Array.from({ length: 5 }, (_, i) => another().claim('fargate', { key: `s${i}`, at: T0 })),
      );
      const taken = claims.filter((claim) => claim !== undefined).map((claim) => claim?.taskId);
      expect(new Set(taken).size).toBe(taken.length);
      expect(taken.length).toBeGreaterThanOrEqual(1);
      expect(taken.length).toBeLessThanOrEqual(3);
      const left = (await store.list('fargate')).filter((task) => task.state === 'idle');
      expect(left.length + taken.length).toBe(3);
    });

    it('retires a task only while it is idle', async () => {
      const { store } = await make();
      await store.register(idleTask(A));
      await store.register(idleTask(B));
      await store.claim('fargate', { key: 'session-1', at: T0 });
      const claimed = (await store.list('fargate')).find((task) => task.state === 'claimed')
        ?.taskId as string;
      const idle = claimed === A ? B : A;
      expect(await store.retire('fargate', claimed)).toBe(false);
      expect(await store.retire('fargate', idle)).toBe(true);
      expect(await store.retire('fargate', idle)).toBe(false);
      expect((await store.list('fargate')).map((task) => task.taskId)).toEqual([claimed]);
    });

    it('forgets a task, and forgetting it again is fine', async () => {
      const { store } = await make();
      await store.register(idleTask(A));
      await store.remove('fargate', A);
      await store.remove('fargate', A);
      expect(await store.list('fargate')).toEqual([]);
    });

    it('forgets a task only under its own pool', async () => {
      const { store } = await make();
      await store.register(idleTask(A));
      await store.remove('other', A);
      expect(await store.retire('other', A)).toBe(false);
      expect(await store.list('fargate')).toEqual([idleTask(A)]);
    });
  });
}
