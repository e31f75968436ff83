/** The SessionStore contract's marks of browsers their platform took back (ReclaimMarks in core/ports.ts). */
import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../functions/core/ports';
import { sampleRecord, T0 } from './store-samples';
import { freshStoreEachTest, type StoreFactory } from './store-under-test';

export function reclaimMarksContract(factory: StoreFactory): void {
  describe('reclaimed browsers', () => {
    let store: SessionStore;
    freshStoreEachTest(factory, (made) => {
      store = made;
    });

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
}
