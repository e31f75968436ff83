/**
 * The SessionStore contract: every adapter (memory, DynamoDB) must pass this same suite, a part for each
 * of the port's jobs (core/ports.ts): quota slots, session records, and marks of reclaimed browsers.
 * Usage: `sessionStoreContract('MemorySessionStore', () => new MemorySessionStore(clock, { maxRecorded }))`:
 * a store whose clock reads T0 (store-samples.ts) and that lists at most RECORDED_MAX recorded sessions.
 */
import { describe } from 'vitest';
import { reclaimMarksContract } from './reclaim-marks.contract';
import { recordedSessionsContract } from './recorded-sessions.contract';
import { sessionRecordsContract } from './session-records.contract';
import { slotLedgerContract } from './slot-ledger.contract';
import type { StoreFactory } from './store-under-test';

export function sessionStoreContract(name: string, factory: StoreFactory): void {
  describe(`${name} (SessionStore contract)`, () => {
    slotLedgerContract(factory);
    sessionRecordsContract(factory);
    recordedSessionsContract(factory);
    reclaimMarksContract(factory);
  });
}
