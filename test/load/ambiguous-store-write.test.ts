/**
 * A shared store that carries out a write and then answers it failed (as DynamoDB does when the answer is
 * cut or comes after the client's request timeout, or when the SDK's retry is throttled after an earlier
 * attempt went through), under the Node server (`startGrid`) with real Chromium. A new session's record
 * write: the client hears 503, the browser is stopped, and the record the store did write is ended by the
 * head that created it (no other head can stop a local browser), at once rather than never, as a failed
 * creation; a second head on the same store leaves the first head's local sessions alone. A DELETE's end
 * of the record: the client hears 503, and the browser stops all the same (no sweep sees the ended record
 * again); an end the store refused outright is made by the sweep once the store is back, as the DELETE it
 * was. Either way no slot, record or browser is left, and the pool serves at full size again. A local
 * record its head left for good (killed outright) is ended by another head once past its maximum age.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { jsonRequest, W3C_CHROME } from '../support/fake-grid';
import { CollectingLogger } from '../support/fakes';
import { FlakyStore } from '../support/flaky-store';
import { launchedProcesses } from '../support/launched-processes';
import { localLauncherOf } from '../support/local-launcher-of';
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

async function sessionIdOf(response: Response): Promise<string> {
  expect(response.status).toBe(200);
  return ((await response.json()) as { value: { sessionId: string } }).value.sessionId;
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
      expect(localLauncherOf(grid.deps).running()).toEqual([]);
      expect(launchedProcesses('chromium')).toEqual([]);
    }, 20_000);
    // The store had taken the write: the record was there, and is ended now, for what happened to it.
    expect(await store.inner.get(key)).toMatchObject({ key, endReason: 'creation failed' });
    expect(logger.fieldsOf('SESSION_ENDED')).toEqual([
      expect.objectContaining({ session: key, reason: 'creation failed' }),
    ]);

    // No slot lost: the pool's one browser serves.
    const sessionId = await sessionIdOf(await newSession(grid.url));
    expect((await fetch(`${grid.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('is left alone by another head, whose sweeps cannot stop its browser', async () => {
    const shared = new FlakyStore();
    const creator = await startHead(shared);
    const other = new FlakyStore(shared.inner);
    await startHead(other);
    const sessionId = await sessionIdOf(await newSession(creator.url));

    // The other head sweeps the running records several times while the session runs.
    const sweptBefore = other.calls.running ?? 0;
    await eventually(() => expect(other.calls.running ?? 0).toBeGreaterThanOrEqual(sweptBefore + 10));
    expect(await shared.inner.running()).toHaveLength(1);
    expect((await fetch(`${creator.url}/session/${sessionId}/title`)).status).toBe(200);
    expect((await fetch(`${creator.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(200);
    expect(await shared.inner.running()).toEqual([]);
  });
});

describe('a local session whose head was killed outright', { timeout: 60_000 }, () => {
  it('is ended by another head once past its maximum age by the clock slack, stopping nothing there', async () => {
    const store = new FlakyStore();
    const logger = new CollectingLogger();
    const grid = await startHead(store, logger);
    const sessionId = await sessionIdOf(await newSession(grid.url));
    const [live] = await store.inner.running();
    if (!live) throw new Error('no record of the running session');
    // What a head killed outright leaves: the records and slots of its local sessions, kept past their
    // maximum age. A handle is a process ID, which may by now be one of this head's browsers' (process
    // IDs repeat on one machine).
    const killed = ['a process of its own', live.handle].map((handle, i) => ({
      ...live,
      key: `session-${i}-of-a-killed-head`,
      head: 'killed-head',
      handle,
      createdAt: Date.now() - live.maxAgeMs,
    }));
    for (const record of killed) {
      await store.inner.acquire(record.key, { pool: 'local', poolLimit: 3, user: record.user });
      await store.inner.add(record);
    }

    await eventually(async () => {
      expect((await store.inner.running()).map((record) => record.key)).toEqual([live.key]);
      expect(await store.inner.inUse()).toEqual({ local: 1 });
    }, 20_000);
    for (const { key } of killed) expect(await store.inner.get(key)).toMatchObject({ endReason: 'max age' });
    expect(logger.fieldsOf('SESSION_TIMED_OUT').map((fields) => fields.session)).toEqual(
      expect.arrayContaining(killed.map(({ key }) => key)),
    );
    // This head's own browser, of the same handle, serves on.
    expect(localLauncherOf(grid.deps).running()).toEqual([live.handle]);
    expect((await fetch(`${grid.url}/session/${sessionId}/title`)).status).toBe(200);
    expect((await fetch(`${grid.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(200);
  });
});

describe('a session end the store refused', { timeout: 60_000 }, () => {
  it('stops the browser at the DELETE, and the record is ended for the DELETE once the store is back', async () => {
    const store = new FlakyStore();
    const logger = new CollectingLogger();
    const grid = await startHead(store, logger);
    const sessionId = await sessionIdOf(await newSession(grid.url));
    const check = grid.deps.tokens.verify(sessionId, 'guest');
    const key = check.ok ? check.claims.key : '';
    store.failing = new Set(['end']);
    expect((await fetch(`${grid.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(503);
    expect(localLauncherOf(grid.deps).running()).toEqual([]);
    expect(await store.inner.running()).toHaveLength(1);
    store.failing = new Set();

    await eventually(async () => expect(await store.inner.running()).toEqual([]), 20_000);
    expect(await store.inner.get(key)).toMatchObject({ key, endReason: 'deleted' });
    expect(logger.fieldsOf('SESSION_DELETED')).toEqual([
      expect.objectContaining({ session: key, reason: 'deleted' }),
    ]);
    expect(logger.fieldsOf('SESSION_ENDED')).toEqual([]);
  });
});

describe('a session end the store took but answered failed', { timeout: 60_000 }, () => {
  it('answers the DELETE 503 and stops the browser all the same, freeing its slot', async () => {
    const store = new FlakyStore();
    const grid = await startHead(store);
    const sessionId = await sessionIdOf(await newSession(grid.url));
    expect(localLauncherOf(grid.deps).running()).toHaveLength(1);
    store.appliedThenFailing = new Set(['end']);
    const refused = await fetch(`${grid.url}/session/${sessionId}`, { method: 'DELETE' });
    expect(refused.status).toBe(503);
    store.appliedThenFailing = new Set();
    // The store had taken the end: no running record is left for any sweep to find.
    expect(await store.inner.running()).toEqual([]);

    await eventually(async () => {
      expect(localLauncherOf(grid.deps).running()).toEqual([]);
      expect(launchedProcesses('chromium')).toEqual([]);
      expect(await store.inner.inUse()).toEqual({});
    }, 20_000);
    const again = await sessionIdOf(await newSession(grid.url));
    expect((await fetch(`${grid.url}/session/${again}`, { method: 'DELETE' })).status).toBe(200);
  });
});
