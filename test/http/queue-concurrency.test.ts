/** Many clients racing for few slots through the whole app: limits hold, everyone gets an answer, slots come back. */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeGrid,
  gridWithUsers,
  jsonRequest,
  type NewSessionAnswer,
  signedInAs,
} from '../support/fake-grid';
import { WatchedSessionStore } from '../support/watched-session-store';

// A client's use of its session: holding it a while is what makes the others queue.
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let grid: FakeGrid;
let store: WatchedSessionStore;
afterEach(() => grid?.close());

function start(config: Record<string, unknown>): void {
  store = new WatchedSessionStore();
  grid = gridWithUsers({ config, sessions: store });
}

/** One client: asks for a session, holds it `holdMs`, deletes it. Answers with the status (and the error). */
async function client(user: string, holdMs: number, options: Record<string, unknown> = {}) {
  const payload = { capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': options } } };
  const response = await grid.app.request('/session', jsonRequest('POST', payload, signedInAs(user)));
  const body = (await response.json()) as NewSessionAnswer & { value: { error?: string; message?: string } };
  if (response.status !== 200) {
    return {
      status: response.status,
      error: body.value.error,
      retryAfter: response.headers.get('retry-after'),
    };
  }
  await pause(holdMs);
  const deleted = await grid.app.request(`/session/${body.value.sessionId}`, {
    method: 'DELETE',
    headers: signedInAs(user),
  });
  expect(deleted.status).toBe(200);
  return { status: 200 };
}

async function expectEverySlotBack(): Promise<void> {
  expect(await grid.sessions.inUse()).toEqual({});
  expect(await grid.sessions.inUseByUser()).toEqual({});
  expect(await grid.sessions.running()).toEqual([]);
  expect(grid.deps.queue.lengths().waiting).toBe(0);
  expect(grid.launcher.stops).toHaveLength(grid.launcher.started.length);
}

describe('clients racing for slots', () => {
  it('gives each of N clients a session in turn, never more than M at once, and gets every slot back', async () => {
    start({ pools: { local: { kind: 'local', maxSessions: 3 } } });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => client(`user-${i % 4}`, 5)));
    expect(results.map((result) => result.status)).toEqual(Array(12).fill(200));
    expect(store.peakByPool).toEqual({ local: 3 });
    expect(grid.launcher.started).toHaveLength(12);
    await expectEverySlotBack();
  });

  it('keeps users’ limits and the pool’s at once when several users race', async () => {
    start({ pools: { local: { kind: 'local', maxSessions: 4 } }, users: { '*': { maxSessions: 2 } } });
    const results = await Promise.all(Array.from({ length: 15 }, (_, i) => client(`user-${i % 3}`, 5)));
    expect(results.every((result) => result.status === 200)).toBe(true);
    expect(store.peakByPool.local).toBeLessThanOrEqual(4);
    expect(Math.max(...Object.values(store.peakByUser))).toBe(2);
    await expectEverySlotBack();
  });

  it('answers every client with a session or a clean timeout when slots stay taken too long', async () => {
    start({ pools: { local: { kind: 'local', maxSessions: 2 } } });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => client(`user-${i}`, 300, { queueTimeout: '100ms' })),
    );
    const created = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status !== 200);
    expect(created.length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThan(0);
    for (const result of refused) {
      expect(result).toEqual({
        status: 500,
        error: 'session not created',
        retryAfter: expect.stringMatching(/^\d+$/),
      });
    }
    expect(store.peakByPool).toEqual({ local: 2 });
    expect(grid.launcher.started).toHaveLength(created.length);
    await expectEverySlotBack();
  });
});
