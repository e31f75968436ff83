/** The ecs kind's Spot interruption Lambda as deployed: its entry, its wiring, the DynamoDB store on dynalite. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { deployJob } from '../../support/deployed-job';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../../support/dynalite';

let directory: string;
let dynamo: DynaliteServer;
let table: SessionTableUnderTest;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'gridgate-interruption-'));
  dynamo = await startDynalite();
});
afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  await dynamo.close();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await table.close();
});

it('marks the browser reclaimed in the table', async () => {
  const deployed = await deployJob(dynamo, directory);
  table = deployed.table;
  const event = JSON.parse(
    readFileSync(new URL('./events/ecs-task-state-change-spot.json', import.meta.url), 'utf8'),
  );
  // Delivered now: the store forgets reclaims after an hour, as it does ended sessions.
  const stoppingAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  event.detail.stoppingAt = stoppingAt.toISOString();
  const { handler } = await import('../../../functions/pools/ecs/spot-interruption-lambda');
  expect(await handler(event)).toMatchObject({
    outcome: 'marked',
    handle: '5d8c2f0e9a7b4c3d8e1f2a3b4c5d6e7f',
  });
  expect(await deployed.store.reclaimed('5d8c2f0e9a7b4c3d8e1f2a3b4c5d6e7f')).toEqual({
    at: stoppingAt.getTime(),
    reason: 'SpotInterruption',
  });
});
