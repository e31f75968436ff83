/**
 * The SessionStore contract's ended sessions with recordings (SessionRecords.recordedSessions in
 * core/ports.ts): only sessions that recorded something, latest end first, each while its recordings are
 * kept, at most the store's bound, and each found by key as long. The store under test lists at most
 * RECORDED_MAX, in pages of RECORDED_PAGE where its listing has pages, so the bound and the paging are
 * reached with a handful of sessions.
 */
import { describe, expect, it } from 'vitest';
import type { SessionRecord, SessionRecording, SessionStore } from '../../functions/core/ports';
import { sampleRecord, T0 } from './store-samples';
import { freshStoreEachTest, type StoreFactory } from './store-under-test';

/** The bound and the page size the store under test is made with. */
export const RECORDED_MAX = 5;
export const RECORDED_PAGE = 2;

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
const VIDEO: SessionRecording = { video: true, log: false, retentionMs: DAY };

export function recordedSessionsContract(factory: StoreFactory): void {
  describe('ended sessions with recordings', () => {
    let store: SessionStore;
    freshStoreEachTest(factory, (made) => {
      store = made;
    });

    // null: a session that recorded nothing.
    async function ended(key: string, at: number, recording: SessionRecording | null = VIDEO) {
      await store.add(sampleRecord(key, recording ? { recording } : {}));
      return store.end(key, 'deleted', at);
    }
    const keys = (records: SessionRecord[]) => records.map((record) => record.key);

    it('lists only sessions that recorded something, latest end first, with their whole record', async () => {
      await ended('video', T0 + 1000);
      await ended('nothing', T0 + 2000, null);
      await ended('log', T0 + 3000, { video: false, log: true, retentionMs: DAY });
      await store.add(sampleRecord('running', { recording: VIDEO }));
      const listed = await store.recordedSessions();
      expect(keys(listed)).toEqual(['log', 'video']);
      expect(listed[1]).toStrictEqual({
        ...sampleRecord('video', { recording: VIDEO }),
        endedAt: T0 + 1000,
        endReason: 'deleted',
      });
    });

    it('orders by when they ended, not by when they were created or added', async () => {
      await store.add(sampleRecord('early-long', { recording: VIDEO, createdAt: T0 - HOUR }));
      await store.add(sampleRecord('late-short', { recording: VIDEO, createdAt: T0 }));
      await store.end('late-short', 'deleted', T0 + 1000);
      await store.end('early-long', 'idle timeout', T0 + 5000);
      expect(keys(await store.recordedSessions())).toEqual(['early-long', 'late-short']);
    });

    it('lists past one page of the listing', async () => {
      for (let i = 1; i <= 4; i++) await ended(`s${i}`, T0 + i * 1000);
      expect(keys(await store.recordedSessions())).toEqual(['s4', 's3', 's2', 's1']);
    });

    it('lists at most its bound: the newest', async () => {
      for (let i = 1; i <= RECORDED_MAX + 2; i++) await ended(`s${i}`, T0 + i * 1000);
      const listed = keys(await store.recordedSessions());
      expect(listed).toHaveLength(RECORDED_MAX);
      expect(listed[0]).toBe(`s${RECORDED_MAX + 2}`);
      expect(listed.at(-1)).toBe('s3');
    });

    it('gives a recording session back by key for its recordings’ retention, past the usual hour', async () => {
      await ended('kept', T0 - 2 * HOUR);
      await ended('plain', T0 - 2 * HOUR, null);
      await ended('later', T0, null);
      expect(await store.get('kept')).toMatchObject({ key: 'kept', endReason: 'deleted', recording: VIDEO });
      expect(await store.get('plain')).toBeUndefined();
    });

    it('no longer lists nor gives back a session whose recordings’ retention is over', async () => {
      await ended('day', T0 - DAY - 1000);
      await ended('hour', T0 - HOUR - 1000, { video: true, log: false, retentionMs: HOUR });
      await ended('fresh', T0 - 1000);
      expect(keys(await store.recordedSessions())).toEqual(['fresh']);
      expect(await store.get('day')).toBeUndefined();
      expect(await store.get('hour')).toBeUndefined();
      expect(await store.get('fresh')).toBeDefined();
    });

    it('lists a session once, however often its end is asked for', async () => {
      await store.add(sampleRecord('s1', { recording: VIDEO }));
      await Promise.all([store.end('s1', 'deleted', T0 + 1), store.end('s1', 'idle timeout', T0 + 2)]);
      await store.end('s1', 'max age', T0 + 3);
      expect(keys(await store.recordedSessions())).toEqual(['s1']);
    });
  });
}
