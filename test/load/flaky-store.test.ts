/**
 * A shared session store that fails for a while under the Node server (`startGrid`, as `npm start`
 * runs it): every store call refused as a throttled DynamoDB call is, then only releases. The server
 * keeps serving commands (they need no store), answers new sessions with a W3C 503 and Retry-After,
 * its background sweeps fail, log and retry rather than ending the process, and once the store is
 * back every slot comes back, the one whose release was refused too. A hub pool on a fake remote end
 * stands in for browsers.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { jsonRequest, W3C_CHROME } from '../support/fake-grid';
import { CollectingLogger, FakeUpstream } from '../support/fakes';
import { EVERY_STORE_CALL, FlakyStore } from '../support/flaky-store';
import { configWithOnePool } from '../support/one-pool-config';
import { warmStatusAdapters } from '../support/warm-status-adapters';
import { eventually } from './served-fake-grid';

const POOL_SIZE = 2;

let hub: FakeUpstream;
let grid: RunningGrid | undefined;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeEach(async () => {
  hub = await FakeUpstream.start();
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  unhandled.length = 0;
  await grid?.close();
  await hub.close();
  grid = undefined;
});

async function newSession(url: string): Promise<Response> {
  return fetch(`${url}/session`, jsonRequest('POST', W3C_CHROME));
}

async function sessionIdOf(response: Response): Promise<string> {
  expect(response.status).toBe(200);
  return ((await response.json()) as { value: { sessionId: string } }).value.sessionId;
}

describe('the Node server over a store that fails for a while', { timeout: 60_000 }, () => {
  it('answers 503 with Retry-After when the store cannot record a session the hub created, and ends it there', async () => {
    const store = new FlakyStore();
    const config = configWithOnePool(
      'hub',
      { kind: 'hub', url: `http://${hub.address}`, maxSessions: POOL_SIZE },
      { port: 0, host: '127.0.0.1', store: { kind: 'dynamodb', table: 'flaky' }, timeouts: { queue: '0s' } },
    );
    const { aws } = warmStatusAdapters(undefined as never, { sessionStore: async () => store });
    grid = await startGrid(config, randomBytes(32), new CollectingLogger(), { aws, reloadPollMs: 0 });
    store.failing = new Set(['add']);
    const refused = await newSession(grid.url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { value: { error: string } }).value.error).toBe('unknown error');
    expect(hub.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual(
      hub.sessionIds.map((id) => `/session/${id}`),
    );
    expect(await store.inner.inUse()).toEqual({});
  });

  it('keeps serving, fails its sweeps without dying, and gets every slot back', async () => {
    const store = new FlakyStore();
    const logger = new CollectingLogger();
    const config = configWithOnePool(
      'hub',
      { kind: 'hub', url: `http://${hub.address}`, maxSessions: POOL_SIZE },
      {
        port: 0,
        host: '127.0.0.1',
        store: { kind: 'dynamodb', table: 'flaky' },
        timeouts: { queue: '0s', newSession: '1s', idle: '1s' },
      },
    );
    const { aws } = warmStatusAdapters(undefined as never, { sessionStore: async () => store });
    grid = await startGrid(config, randomBytes(32), logger, {
      aws,
      reloadPollMs: 0,
      sweepMs: 50,
      staleSlotGraceMs: 0,
    });
    const url = grid.url;
    const [first, second] = [
      await sessionIdOf(await newSession(url)),
      await sessionIdOf(await newSession(url)),
    ];

    // The outage: every store call is refused.
    store.failing = new Set(EVERY_STORE_CALL);
    const refused = await newSession(url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { value: { message: string } }).value.message).toMatch(
      /session store .* is unavailable: ThrottlingException/,
    );
    // Commands need no store: the session is driven all along.
    expect((await fetch(`${url}/session/${second}/title`)).status).toBe(200);
    // Its DELETE reaches the hub, but the store cannot end the record: the client hears so.
    expect((await fetch(`${url}/session/${first}`, { method: 'DELETE' })).status).toBe(503);
    const failedRuns = (task: string) =>
      logger.fieldsOf('BACKGROUND_TASK_FAILED').filter((fields) => fields.task === task).length;
    await eventually(() => {
      expect(failedRuns('expiry sweep')).toBeGreaterThanOrEqual(3);
      expect(failedRuns('stale-slot sweep')).toBeGreaterThanOrEqual(3);
    });
    expect((await fetch(`${url}/session/${second}/title`)).status).toBe(200);

    // Half back: records can be ended, but releases are still refused; the second session is deleted.
    store.failing = new Set(['release']);
    expect((await fetch(`${url}/session/${second}`, { method: 'DELETE' })).status).toBe(503);

    // All back: the first session's record ends at its idle timeout (its hub session is asked to end
    // too), the second's slot, which no record holds now, is freed by the stale-slot sweep.
    store.failing = new Set();
    await eventually(async () => {
      expect(await store.inner.running()).toEqual([]);
      expect(await store.inner.inUse()).toEqual({});
    }, 20_000);
    expect(unhandled).toEqual([]);

    // No slot was lost: the whole pool serves again.
    const again = [await sessionIdOf(await newSession(url)), await sessionIdOf(await newSession(url))];
    for (const id of again)
      expect((await fetch(`${url}/session/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await store.inner.inUse()).toEqual({});
    expect(store.refused).toBeGreaterThan(0);
  });
});
