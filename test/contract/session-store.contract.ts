/**
 * The SessionStore contract: every adapter (memory, DynamoDB) must pass this same suite, a part for each
 * of the port's jobs (core/ports.ts): quota slots, session records, and marks of reclaimed browsers.
 * Usage: `sessionStoreContract('MemorySessionStore', () => new MemorySessionStore())`.
 */
import { describe } from 'vitest';
import { reclaimMarksContract } from './reclaim-marks.contract';
import { sessionRecordsContract } from './session-records.contract';
import { slotLedgerContract } from './slot-ledger.contract';
import type { StoreFactory } from './store-under-test';

export function sessionStoreContract(name: string, factory: StoreFactory): void {
  describe(`${name} (SessionStore contract)`, () => {
    slotLedgerContract(factory);
    sessionRecordsContract(factory);
    reclaimMarksContract(factory);
  });
}
