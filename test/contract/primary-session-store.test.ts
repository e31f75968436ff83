/**
 * A worker process's SessionStore (PrimarySessionStore) marking a test's result: each call crosses as the IPC
 * channel carries it (JSON, both ways) to answerPortCall on a memory store, as the primary answers it.
 */

import { describe, expect, it } from 'vitest';
import { toWire } from '../../functions/adapters/cluster/cluster-messages';
import { PrimaryCalls } from '../../functions/adapters/cluster/primary-calls';
import { PrimarySessionStore } from '../../functions/adapters/cluster/primary-session-store';
import { answerPortCall } from '../../functions/adapters/cluster/worker-calls';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import type { GridDeps } from '../../functions/core/grid-deps';
import { SlotQueue } from '../../functions/core/slot-queue';
import { FixedClock } from '../support/fakes';
import { sampleRecord, T0 } from './store-samples';

function workerStore() {
  const primary = new MemorySessionStore(new FixedClock(T0));
  const deps = { sessions: primary, queue: new SlotQueue() } as unknown as GridDeps;
  const wire = <T>(value: T): T => (value === undefined ? value : JSON.parse(JSON.stringify(value)));
  const calls: PrimaryCalls = new PrimaryCalls((message) => {
    if (message.type !== 'call') return;
    const { type: _type, id, ...call } = wire(message);
    answerPortCall(deps, call).then(
      (value) => calls.settle({ type: 'reply', id, value: wire(value ?? null) }),
      (error: unknown) => calls.settle({ type: 'reply', id, error: toWire(error) }),
    );
  });
  return new PrimarySessionStore(calls);
}

describe('PrimarySessionStore', () => {
  it('marks a running and an ended session through the primary, and answers undefined for none', async () => {
    const store = workerStore();
    await store.add(sampleRecord('s1'));
    expect(
      await store.mark('s1', { result: { status: 'failed', reason: 'boom' }, labels: { a: '1' } }),
    ).toMatchObject({
      key: 's1',
      result: { status: 'failed', reason: 'boom' },
    });
    await store.end('s1', 'deleted', T0 + 1000);
    expect(await store.mark('s1', { build: 'b1' })).toMatchObject({
      endReason: 'deleted',
      build: 'b1',
      labels: { a: '1' },
    });
    expect(await store.mark('nope', { build: 'b1' })).toBeUndefined();
  });
});
