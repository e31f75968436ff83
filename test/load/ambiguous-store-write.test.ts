/**
 * A shared store that carries out a session's record write and then answers it failed (as DynamoDB does
 * when the answer is cut or comes after the client's request timeout, or when the SDK's retry is throttled
 * after an earlier attempt went through), under the Node server (`startGrid`) with real Chromium. The
 * client hears 503, the browser is stopped, and the record the store did write is ended by the head that
 * created it (no other head can stop a local browser), at once rather than never: its slot and its browser
 * are gone, and the pool serves at full size again. A second head on the same store leaves the first
 * head's local sessions alone.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { jsonRequest, W3C_CHROME } from '../support/fake-grid';
import { CollectingLogger } from '../support/fakes';
import { FlakyStore } from '../support/flaky-store';
import { launchedProcesses } from '../support/launched-processes';
import { configWithOnePool } from '../support/one-pool-config';
import { warmStatusAdapters } from '../support/warm-status-adapters';
import { eventually } from './served-fake-grid';

const grids: RunningGrid[] = [];

afterEach(async () => {
  await Promise.all(grids.splice(0).map((grid) => grid.close()));
});

/** A head on `store` (shared, as a DynamoDB table is) with one local pool of 1 browser, sweeping every 50 ms. */
async function startHead(store: FlakyStore, logger = new CollectingLogger()): Promise<RunningGrid> {
  const config = configWithOnePool(
    'local',
    { kind: 'local', maxSessions: 1 },
    {
      port: 0,
      host: '127.0.0.1',
      store: { kind: 'dynamodb', table: 'flaky' },
      // Long: what ends the left record here is not its idle timeout.
      timeouts: { queue: '0s', idle: '1h' },
    },
  );
  const { aws } = warmStatusAdapters(undefined as never, { sessionStore: async () => store });
  const grid = await startGrid(config, randomBytes(32), logger, {
    aws,
    reloadPollMs: 0,
    sweepMs: 50,
    staleSlotGraceMs: 0,
  });
  grids.push(grid);
  return grid;
}

async function newSession(url: string): Promise<Response> {
  return fetch(`${url}/session`, jsonRequest('POST', W3C_CHROME));
}

describe('a session record the store wrote but answered failed', { timeout: 60_000 }, () => {
  it('is ended by the head that created it, with its slot and browser', async () => {
    const store = new FlakyStore();
    const logger = new CollectingLogger();
    const grid = await startHead(store, logger);
    store.appliedThenFailing = new Set(['add']);
    const refused = await newSession(grid.url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    store.appliedThenFailing = new Set();
    const [failed] = logger.fieldsOf('SESSION_FAILED');
    const key = String(failed?.session);

    await eventually(async () => {
      expect(await store.inner.running()).toEqual([]);
      expect(await store.inner.inUse()).toEqual({});
      expect(grid.launcher.running()).toEqual([]);
      expect(launchedProcesses('chromium')).toEqual([]);
    }, 20_000);
    // The store had taken the write: the record was there, and is ended now.
    expect(await store.inner.get(key)).toMatchObject({ key, endReason: 'browser exited' });

    // No slot lost: the pool's one browser serves.
    const again = await newSession(grid.url);
    expect(again.status).toBe(200);
    const { sessionId } = ((await again.json()) as { value: { sessionId: string } }).value;
    expect((await fetch(`${grid.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('is left alone by another head, whose sweeps cannot stop its browser', async () => {
    const shared = new FlakyStore();
    const creator = await startHead(shared);
    const other = new FlakyStore(shared.inner);
    await startHead(other);
    const created = await newSession(creator.url);
    expect(created.status).toBe(200);
    const { sessionId } = ((await created.json()) as { value: { sessionId: string } }).value;

    // The other head sweeps the running records several times while the session runs.
    const sweptBefore = other.calls.running ?? 0;
    await eventually(() => expect(other.calls.running ?? 0).toBeGreaterThanOrEqual(sweptBefore + 10));
    expect(await shared.inner.running()).toHaveLength(1);
    expect((await fetch(`${creator.url}/session/${sessionId}/title`)).status).toBe(200);
    expect((await fetch(`${creator.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(200);
    expect(await shared.inner.running()).toEqual([]);
  });
});
