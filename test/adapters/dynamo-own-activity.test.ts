/**
 * What a head's DynamoDB store lists as running carries the latest activity that head noted, though its
 * activity writes are throttled to the touch interval, not awaited, and may be refused: a head's expiry
 * sweep never ends a session idle by a time the head knows is past. Other heads see the table's time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { sampleRecord } from '../contract/store-samples';
import { type DynaliteServer, startDynalite } from '../support/dynalite';

const T0 = sampleRecord('any').createdAt;

let dynamo: DynaliteServer;
beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo?.close();
});

describe('DynamoSessionStore.running, as one head lists it', () => {
  it('shows the latest activity this head noted before its write, and the table’s to the others', async () => {
    const table = await dynamo.createSessionTable();
    try {
      let now = T0;
      const clock = { now: () => now };
      const options = { client: table.client, table: table.table, touchIntervalMs: 15_000 };
      const head = new DynamoSessionStore({ ...options, clock });
      const other = new DynamoSessionStore({ ...options, clock });
      await head.add(sampleRecord('s1'));
      head.touch('s1', T0 + 1000);
      await head.settled();
      now += 10_000;
      head.touch('s1', T0 + 11_000); // within the touch interval: not written
      await head.settled();
      expect((await head.running())[0]?.lastActivityAt).toBe(T0 + 11_000);
      expect((await other.running())[0]?.lastActivityAt).toBe(T0 + 1000);
      expect((await head.get('s1'))?.lastActivityAt).toBe(T0 + 1000);
    } finally {
      await table.close();
    }
  });

  it('never shows a time older than the table’s', async () => {
    const table = await dynamo.createSessionTable();
    try {
      const clock = { now: () => T0 };
      const options = { client: table.client, table: table.table, clock };
      const head = new DynamoSessionStore(options);
      const other = new DynamoSessionStore(options);
      await head.add(sampleRecord('s1'));
      head.touch('s1', T0 + 1000);
      await head.settled();
      other.touch('s1', T0 + 5000);
      await other.settled();
      expect((await head.running())[0]?.lastActivityAt).toBe(T0 + 5000);
    } finally {
      await table.close();
    }
  });
});
