/** Quotas and queueing through the whole app: users' rules, pool capacity, waiting for a slot, /status. */
import { afterEach, describe, expect, it } from 'vitest';
import { expireSessions } from '../../functions/use-cases/expire-sessions';
import {
  expectW3cError,
  type FakeGrid,
  gridWithUsers,
  jsonRequest,
  type NewSessionAnswer,
  signedInAs,
  W3C_CHROME,
} from '../support/fake-grid';
import { eventually } from '../support/until';

const TWO_BROWSERS = {
  browsers: {
    chrome: {
      defaultVersion: '157.0',
      versions: { '156.0': { pools: ['one', 'two'] }, '157.0': { pools: ['one', 'two'] } },
    },
    firefox: { versions: { '140.0': { pools: ['one'] } } },
  },
  pools: { one: { kind: 'local' }, two: { kind: 'local' } },
};

let grid: FakeGrid;
afterEach(() => grid?.close());

function start(config: Record<string, unknown> = {}, launcher = {}): FakeGrid {
  grid = gridWithUsers({ config, launcher });
  return grid;
}

async function post(user: string, payload: unknown = W3C_CHROME, signal?: AbortSignal): Promise<Response> {
  return grid.app.request('/session', { ...jsonRequest('POST', payload, signedInAs(user)), signal });
}

async function sessionOf(response: Response): Promise<string> {
  const body = (await response.json()) as NewSessionAnswer;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.value.sessionId;
}

const create = async (user: string, payload: unknown = W3C_CHROME) => sessionOf(await post(user, payload));
const remove = (user: string, id: string) =>
  grid.app.request(`/session/${id}`, { method: 'DELETE', headers: signedInAs(user) });
const chrome = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': options, ...extra } },
});

interface Status {
  value: { ready: boolean; message: string; waiting: number; pools: { name: string; waiting: number }[] };
}
const status = async () => ((await (await grid.app.request('/status')).json()) as Status).value;
const waiting = async () => (await status()).waiting;

/** Whether the promise has settled within 20 ms: a fixed window on purpose, to show it is still waiting. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  return (
    (await Promise.race([promise, new Promise((resolve) => setTimeout(resolve, 20, pending))])) !== pending
  );
}

describe('users’ rules', () => {
  it('holds a user to users.{name}.maxSessions and leaves other users alone', async () => {
    start({
      pools: { local: { kind: 'local', maxSessions: 4 } },
      users: { alice: { maxSessions: 1 } },
      timeouts: { queue: '0s' },
    });
    await create('alice');
    const refused = await post('alice');
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    await expectW3cError(refused, 500, 'session not created', /user alice already holds 1 of 1 sessions/);
    await create('bob');
    await create('bob');
    expect(await grid.sessions.inUseByUser()).toEqual({ alice: 1, bob: 2 });
    expect(grid.launcher.started).toHaveLength(3);
  });

  it('gives users without an entry the "*" rule, and a user’s own entry replaces it as a whole', async () => {
    start({
      users: { '*': { maxSessions: 1 }, alice: { browsers: { chrome: '*' } } },
      timeouts: { queue: '0s' },
    });
    await create('bob');
    await expectW3cError(await post('bob'), 500, 'session not created', /user bob already holds 1 of 1/);
    // alice's entry sets no maxSessions, so only the pool (2 sessions) limits her.
    await create('alice');
    await expectW3cError(await post('alice'), 500, 'session not created', /pool local is full/);
  });

  it('sets no per-user limit for users without an entry when there is no "*" entry', async () => {
    start({ users: { alice: { maxSessions: 1 } }, timeouts: { queue: '0s' } });
    await create('carol');
    await create('carol');
    await expectW3cError(
      await post('carol'),
      500,
      'session not created',
      /pool local is full \(2 sessions\)/,
    );
  });

  it('refuses a browser the user may not use at once, naming it and what the user may use', async () => {
    start({ ...TWO_BROWSERS, users: { alice: { browsers: { chrome: '*' } } } });
    const message = await expectW3cError(
      await post('alice', { capabilities: { alwaysMatch: { browserName: 'firefox' } } }),
      500,
      'session not created',
    );
    expect(message).toBe(
      'user alice may not use firefox 140.0; alice may use chrome 156.0 (linux), chrome 157.0 (linux)',
    );
    expect(grid.launcher.started).toEqual([]);
    expect(await waiting()).toBe(0);
    await create('bob', { capabilities: { alwaysMatch: { browserName: 'firefox' } } });
  });

  it('refuses a version the user may not use, and picks an allowed one when none is asked for', async () => {
    start({ ...TWO_BROWSERS, users: { alice: { browsers: { chrome: ['156'] } } } });
    await expectW3cError(
      await post('alice', {
        capabilities: { alwaysMatch: { browserName: 'chrome', browserVersion: '157' } },
      }),
      500,
      'session not created',
      /^user alice may not use chrome 157\.0; alice may use chrome 156\.0 \(linux\)$/,
    );
    await create('alice');
    expect((await grid.sessions.running()).map((r) => [r.user, r.browserVersion])).toEqual([
      ['alice', '156.0'],
    ]);
  });

  it('takes the first capability set the user may use', async () => {
    start({ ...TWO_BROWSERS, users: { alice: { browsers: { chrome: '*' } } } });
    await create('alice', {
      capabilities: { firstMatch: [{ browserName: 'firefox' }, { browserName: 'chrome' }] },
    });
    expect((await grid.sessions.running())[0]?.browserName).toBe('chrome');
  });

  it('starts a user’s sessions only in the pools the user may use', async () => {
    start({ ...TWO_BROWSERS, users: { alice: { pools: ['two'] } } });
    for (let i = 0; i < 4; i++) await create('alice');
    expect(await grid.sessions.inUse()).toEqual({ two: 4 });
  });

  it('refuses a browser served only by pools the user may not use, naming them', async () => {
    start({ ...TWO_BROWSERS, users: { alice: { pools: ['two'] } } });
    await expectW3cError(
      await post('alice', { capabilities: { alwaysMatch: { browserName: 'firefox' } } }),
      500,
      'session not created',
      /^user alice may not use the pools that serve firefox 140\.0 \(one\); alice may use chrome/,
    );
  });

  it('still says "no browser here matches" for what the grid does not offer at all', async () => {
    start({ users: { alice: { browsers: { chrome: '*' } } } });
    await expectW3cError(
      await post('alice', { capabilities: { alwaysMatch: { browserName: 'safari' } } }),
      500,
      'session not created',
      /no browser here matches \{browserName "safari"\}/,
    );
  });
});

describe('waiting for a slot', () => {
  it('waits while the pool is full and proceeds as soon as another session is deleted', async () => {
    start({ pools: { local: { kind: 'local', maxSessions: 1 } } });
    const first = await create('alice');
    const second = post('bob');
    await eventually(async () => expect(await waiting()).toBe(1));
    expect(await status()).toMatchObject({
      ready: false,
      message: 'gridgate is at capacity; 1 waiting for a slot',
      pools: [{ name: 'local', waiting: 1 }],
    });
    expect(await settled(second)).toBe(false);
    expect(grid.launcher.started).toHaveLength(1);
    await remove('alice', first);
    await sessionOf(await second);
    expect(await grid.sessions.inUseByUser()).toEqual({ bob: 1 });
    expect(await waiting()).toBe(0);
    expect(grid.logger.fieldsOf('SESSION_QUEUED')).toEqual([
      expect.objectContaining({ user: 'bob', reason: 'pool local is full (1 sessions)', ahead: 0 }),
    ]);
  });

  it('waits on the user’s limit and proceeds when the user’s session ends by idle timeout', async () => {
    start({ users: { alice: { maxSessions: 1 } } });
    await create('alice');
    const second = post('alice');
    await eventually(async () => expect(await waiting()).toBe(1));
    // The user's limit is what holds it back; the pool still has room, so the grid is ready.
    expect((await status()).ready).toBe(true);
    grid.clock.advance(300_000);
    expect(await expireSessions(grid.deps)).toBe(1);
    await sessionOf(await second);
    expect(await grid.sessions.inUseByUser()).toEqual({ alice: 1 });
  });

  it('serves one user’s waiting requests first in, first out', async () => {
    start({ users: { alice: { maxSessions: 1 } } });
    const held = await create('alice');
    const first = post('alice', chrome({ idleTimeout: '1m' }));
    await eventually(async () => expect(await waiting()).toBe(1));
    const second = post('alice', chrome({ idleTimeout: '2m' }));
    await eventually(async () => expect(await waiting()).toBe(2));
    await remove('alice', held);
    const firstId = await sessionOf(await first);
    expect(await settled(second)).toBe(false);
    expect((await grid.sessions.running()).map((r) => r.idleTimeoutMs)).toEqual([60_000]);
    await remove('alice', firstId);
    await sessionOf(await second);
    expect((await grid.sessions.running()).map((r) => r.idleTimeoutMs)).toEqual([120_000]);
  });

  it('does not hold back another user while one user waits on their own limit', async () => {
    start({ users: { alice: { maxSessions: 1 } } });
    await create('alice');
    const waitingForAlice = post('alice', chrome({ queueTimeout: '300ms' }));
    await eventually(async () => expect(await waiting()).toBe(1));
    await create('bob');
    await expectW3cError(await waitingForAlice, 500, 'session not created', /user alice already holds/);
  });

  it('gives up after timeouts.queue with 500 session not created naming the user’s limit, and Retry-After', async () => {
    start({ users: { alice: { maxSessions: 1 } }, timeouts: { queue: '200ms' } });
    await create('alice');
    const response = await post('alice');
    expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    await expectW3cError(
      response,
      500,
      'session not created',
      'cannot create a chrome 156.0.7000.1 session: user alice already holds 1 of 1 sessions (waited 200ms for a slot)',
    );
    expect(await waiting()).toBe(0);
    expect(await grid.sessions.inUseByUser()).toEqual({ alice: 1 });
    expect(grid.launcher.started).toHaveLength(1);
    expect(grid.logger.fieldsOf('SESSION_FAILED')).toEqual([
      expect.objectContaining({ user: 'alice', reason: 'user alice already holds 1 of 1 sessions' }),
    ]);
  });

  it('gives up naming the full pool when gridgate:options.queueTimeout shortens the wait', async () => {
    start({ pools: { local: { kind: 'local', maxSessions: 1 } } });
    await create('alice');
    await expectW3cError(
      await post('bob', chrome({ queueTimeout: '100ms' })),
      500,
      'session not created',
      /pool local is full \(1 sessions\) \(waited 100ms for a slot\)$/,
    );
  });

  it('refuses a gridgate:options.queueTimeout longer than timeouts.queue with 400, waiting for nothing', async () => {
    start({ pools: { local: { kind: 'local', maxSessions: 1 } }, timeouts: { queue: '30s' } });
    await create('alice');
    await expectW3cError(
      await post('bob', chrome({ queueTimeout: '31s' })),
      400,
      'invalid argument',
      /gridgate:options.queueTimeout 31s is longer than this grid allows \(30s\)/,
    );
    expect(await waiting()).toBe(0);
  });

  it('takes a client that goes away out of the queue, and gives it no slot', async () => {
    start({ pools: { local: { kind: 'local', maxSessions: 1 } } });
    const held = await create('alice');
    const client = new AbortController();
    const gone = post('bob', W3C_CHROME, client.signal);
    await eventually(async () => expect(await waiting()).toBe(1));
    client.abort();
    await expectW3cError(await gone, 500, 'session not created', /the client went away/);
    expect(await waiting()).toBe(0);
    await remove('alice', held);
    expect(await grid.sessions.inUse()).toEqual({});
    expect(grid.launcher.started).toHaveLength(1);
    expect(grid.logger.fieldsOf('SESSION_FAILED')).toEqual([
      expect.objectContaining({ user: 'bob', reason: 'the client went away' }),
    ]);
  });

  it('hands the slot on to the next waiter when a creation after waiting fails', async () => {
    start({ pools: { local: { kind: 'local', maxSessions: 1 } } });
    const held = await create('alice');
    const unlucky = post('bob');
    await eventually(async () => expect(await waiting()).toBe(1));
    const lucky = post('carol');
    await eventually(async () => expect(await waiting()).toBe(2));
    const realStart = grid.launcher.start.bind(grid.launcher);
    let failNext = true;
    grid.launcher.start = async (request) => {
      if (failNext) {
        failNext = false;
        throw new Error('no capacity for a browser');
      }
      return realStart(request);
    };
    await remove('alice', held);
    await expectW3cError(await unlucky, 500, 'session not created', /no capacity for a browser/);
    await sessionOf(await lucky);
    expect(await grid.sessions.inUseByUser()).toEqual({ carol: 1 });
  });

  it('counts waiting requests for every pool that could serve them in /status', async () => {
    start({
      ...TWO_BROWSERS,
      pools: { one: { kind: 'local', maxSessions: 1 }, two: { kind: 'local', maxSessions: 1 } },
    });
    const held = [await create('alice', { capabilities: { alwaysMatch: { browserName: 'firefox' } } })];
    held.push(await create('alice'));
    const chromeWaiter = post('bob', chrome({ queueTimeout: '5s' }));
    const firefoxWaiter = post('carol', {
      capabilities: { alwaysMatch: { browserName: 'firefox', 'gridgate:options': { queueTimeout: '5s' } } },
    });
    await eventually(async () => expect(await waiting()).toBe(2));
    expect((await status()).pools).toEqual([
      expect.objectContaining({ name: 'one', waiting: 2 }),
      expect.objectContaining({ name: 'two', waiting: 1 }),
    ]);
    for (const id of held) await remove('alice', id);
    await Promise.all([sessionOf(await chromeWaiter), sessionOf(await firefoxWaiter)]);
  });
});
