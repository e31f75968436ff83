import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { FixedClock } from '../support/fakes';
import { RECORDED_MAX } from './recorded-sessions.contract';
import { sessionStoreContract } from './session-store.contract';
import { sampleRecord, T0 } from './store-samples';

sessionStoreContract(
  'MemorySessionStore',
  () => new MemorySessionStore(new FixedClock(T0), { maxRecorded: RECORDED_MAX }),
);

describe('MemorySessionStore', () => {
  it('forgets ended sessions after an hour', async () => {
    const store = new MemorySessionStore();
    const t0 = Date.UTC(2025, 0, 1);
    await store.add(sampleRecord('old'));
    await store.end('old', 'deleted', t0);
    await store.add(sampleRecord('later'));
    await store.end('later', 'deleted', t0 + 60 * 60_000);
    expect(await store.get('old')).toBeUndefined();
    expect(await store.get('later')).toMatchObject({ endReason: 'deleted' });
  });

  it('touches the running record synchronously', async () => {
    const store = new MemorySessionStore();
    await store.add(sampleRecord('s1'));
    store.touch('s1', 123);
    expect((await store.running())[0]?.lastActivityAt).toBe(123);
  });
});
