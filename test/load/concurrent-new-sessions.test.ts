/**
 * 200 clients ask for a session at once, over real HTTP, under user and pool limits and a queue
 * timeout: each gets a session or a clean W3C "session not created", no limit is ever exceeded, and
 * afterwards every slot is back and every fake browser started was stopped.
 */
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { signedInAs, withUsers } from '../support/fake-grid';
import { WatchedSessionStore } from '../support/watched-session-store';
import { expectNothingLeft, type ServedFakeGrid, serveFakeGrid } from './served-fake-grid';

const CLIENTS = 200;
const USERS = 10;

// A client's use of its session: holding it a while is what makes the others queue.
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let grid: ServedFakeGrid | undefined;
let store: WatchedSessionStore;
// One connection per client, as 200 separate test processes would have.
const agent = new Agent({ connections: CLIENTS + 10 });
afterEach(async () => {
  await grid?.close();
  grid = undefined;
});

async function start(config: Record<string, unknown>): Promise<ServedFakeGrid> {
  store = new WatchedSessionStore();
  grid = await serveFakeGrid(withUsers({ config, sessions: store }));
  return grid;
}

interface Outcome {
  status: number;
  error?: string;
  message?: string;
  keys?: string[];
}

/** One client: asks for a session, runs one command, holds it `holdMs`, deletes it. */
async function client(origin: string, user: string, holdMs: number): Promise<Outcome> {
  const headers = { ...signedInAs(user), 'content-type': 'application/json; charset=utf-8' };
  const created = await request(`${origin}/session`, {
    dispatcher: agent,
    method: 'POST',
    headers,
    body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
  });
  const body = (await created.body.json()) as {
    value: { sessionId?: string; error?: string; message?: string; stacktrace?: string };
  };
  if (created.statusCode !== 200) {
    return { status: created.statusCode, ...body.value, keys: Object.keys(body.value).sort() };
  }
  const id = body.value.sessionId as string;
  const title = await request(`${origin}/session/${id}/title`, { dispatcher: agent, headers });
  expect(title.statusCode).toBe(200);
  await title.body.dump();
  await pause(holdMs);
  const deleted = await request(`${origin}/session/${id}`, { dispatcher: agent, method: 'DELETE', headers });
  expect(deleted.statusCode).toBe(200);
  await deleted.body.dump();
  return { status: 200 };
}

const everyone = (origin: string, holdMs: number) =>
  Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(origin, `user-${i % USERS}`, holdMs)));

describe(`${CLIENTS} concurrent new sessions under quotas`, () => {
  it('serves every client in turn when the queue may wait long enough, within every limit', async () => {
    const { origin } = await start({
      pools: { local: { kind: 'local', maxSessions: 20 } },
      users: { '*': { maxSessions: 3 } },
      timeouts: { queue: '30s' },
    });
    const outcomes = await everyone(origin, 20);
    expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
    expect(store.peakByPool.local).toBeLessThanOrEqual(20);
    expect(Math.max(...Object.values(store.peakByUser))).toBeLessThanOrEqual(3);
    expect((grid as ServedFakeGrid).launcher.started).toHaveLength(CLIENTS);
    await expectNothingLeft(grid as ServedFakeGrid);
  });

  it('refuses the ones the queue timeout leaves behind with a clean W3C error, and leaks nothing', async () => {
    const { origin } = await start({
      pools: { local: { kind: 'local', maxSessions: 8 } },
      users: { '*': { maxSessions: 4 } },
      timeouts: { queue: '300ms' },
    });
    const outcomes = await everyone(origin, 150);
    const created = outcomes.filter((o) => o.status === 200);
    const refused = outcomes.filter((o) => o.status !== 200);
    expect(created.length).toBeGreaterThanOrEqual(8);
    expect(refused.length).toBeGreaterThan(0);
    for (const outcome of refused) {
      expect(outcome).toMatchObject({
        status: 500,
        error: 'session not created',
        keys: ['error', 'message', 'stacktrace'],
      });
      expect(outcome.message).toMatch(/\S/);
    }
    expect(store.peakByPool.local).toBeLessThanOrEqual(8);
    expect(Math.max(...Object.values(store.peakByUser))).toBeLessThanOrEqual(4);
    expect((grid as ServedFakeGrid).launcher.started).toHaveLength(created.length);
    await expectNothingLeft(grid as ServedFakeGrid);
  });
});
