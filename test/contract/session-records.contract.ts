/**
 * The SessionStore contract's session records (SessionRecords in core/ports.ts): every field given back,
 * activity and commands counted by touch, and a session ended once, for one caller.
 */
import { describe, expect, it } from 'vitest';
import type { SessionRecord, SessionStore } from '../../functions/core/ports';
import { eventually } from '../support/until';
import { sampleRecord, slot, T0 } from './store-samples';
import { freshStoreEachTest, type StoreFactory } from './store-under-test';

export function sessionRecordsContract(factory: StoreFactory): void {
  describe('session records', () => {
    let store: SessionStore;
    freshStoreEachTest(factory, (made) => {
      store = made;
    });

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
      await eventually(async () => expect((await store.get('s1'))?.lastActivityAt).toBe(T0 + 42_000));
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
        protocol: 'playwright',
        head: 'head-a',
        recording: { video: true, log: true, retentionMs: 86_400_000 },
        result: { status: 'failed', reason: 'the total was 41' },
        build: 'nightly-7',
        project: 'shop',
        labels: { team: 'payments', smoke: '' },
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
      await eventually(async () => {
        const record = await store.get('s1');
        expect({ commands: record?.commands, lastCommand: record?.lastCommand }).toEqual({
          commands: 1,
          lastCommand: 'POST /element/{id}/click',
        });
      });
      expect((await store.running())[0]).toMatchObject({
        commands: 1,
        lastCommand: 'POST /element/{id}/click',
      });
    });

    it('does not count activity that is not a command', async () => {
      await store.add(sampleRecord('s1'));
      store.touch('s1', T0 + 1000);
      await eventually(async () => expect((await store.get('s1'))?.lastActivityAt).toBe(T0 + 1000));
      expect((await store.get('s1'))?.commands ?? 0).toBe(0);
    });

    it('ends a session with every command this store counted, and its last one', async () => {
      await store.add(sampleRecord('s1'));
      store.touch('s1', T0 + 1000, 'POST', '/url');
      await eventually(async () => expect((await store.get('s1'))?.commands).toBe(1));
      store.touch('s1', T0 + 2000, 'GET', '/title');
      store.touch('s1', T0 + 3000, 'DELETE', '');
      const ended = await store.end('s1', 'deleted', T0 + 4000);
      expect(ended).toMatchObject({ commands: 3, lastCommand: 'DELETE session' });
      expect(await store.get('s1')).toMatchObject({ commands: 3, lastCommand: 'DELETE session' });
    });

    describe('marks of the test', () => {
      it('merges marks into a running record: a given field replaces, labels merge by name', async () => {
        await store.add({ ...sampleRecord('s1'), name: 'asked', labels: { team: 'a', os: 'linux' } });
        const marked = await store.mark('s1', {
          result: { status: 'failed', reason: 'boom' },
          build: 'b1',
          labels: { team: 'b' },
        });
        const expected = {
          ...sampleRecord('s1'),
          name: 'asked',
          result: { status: 'failed', reason: 'boom' },
          build: 'b1',
          labels: { team: 'b', os: 'linux' },
        };
        expect(marked).toStrictEqual(expected);
        expect(await store.get('s1')).toStrictEqual(expected);
        await store.mark('s1', { result: { status: 'passed' }, name: 'renamed' });
        expect(await store.get('s1')).toMatchObject({
          result: { status: 'passed' },
          name: 'renamed',
          build: 'b1',
        });
      });

      it('keeps the marks made while the session ran once it ended', async () => {
        await store.add(sampleRecord('s1'));
        store.touch('s1', T0 + 500, 'POST', '/url');
        await store.mark('s1', { result: { status: 'failed' } });
        const ended = await store.end('s1', 'deleted', T0 + 1000);
        expect(ended?.result).toEqual({ status: 'failed' });
        expect((await store.get('s1'))?.result).toEqual({ status: 'failed' });
      });

      it('marks an ended session, in its recorded listing too', async () => {
        await store.add({
          ...sampleRecord('s1'),
          recording: { video: true, log: false, retentionMs: 86_400_000 },
        });
        await store.end('s1', 'deleted', T0 + 1000);
        const marked = await store.mark('s1', { result: { status: 'passed' }, project: 'shop' });
        expect(marked).toMatchObject({ endReason: 'deleted', result: { status: 'passed' }, project: 'shop' });
        expect(await store.get('s1')).toMatchObject({ result: { status: 'passed' }, project: 'shop' });
        await eventually(async () =>
          expect((await store.recordedSessions())[0]).toMatchObject({
            key: 's1',
            result: { status: 'passed' },
          }),
        );
      });

      it('answers undefined for a key without a record, and makes none', async () => {
        expect(await store.mark('nope', { result: { status: 'failed' } })).toBeUndefined();
        expect(await store.get('nope')).toBeUndefined();
      });

      it('keeps both of two concurrent marks', async () => {
        await store.add(sampleRecord('s1'));
        await Promise.all([
          store.mark('s1', { labels: { a: '1' } }),
          store.mark('s1', { labels: { b: '2' } }),
        ]);
        expect((await store.get('s1'))?.labels).toEqual({ a: '1', b: '2' });
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
  });
}
