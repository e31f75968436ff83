/** Pools of kind hub: ggr's routing behaviours, against fake hubs on 127.0.0.1 under /wd/hub. */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { expireSessions } from '../../functions/use-cases/expire-sessions';
import {
  created,
  expectW3cError,
  type FakeGrid,
  jsonRequest,
  startFakeGrid,
  W3C_CHROME,
} from '../support/fake-grid';
import { type FakeAnswer, FakeUpstream, jsonAnswer, type RecordedRequest } from '../support/fakes';

const BASE = '/wd/hub';
const CLIENT_AUTH = `Basic ${Buffer.from('client:client-secret').toString('base64')}`;
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let grid: FakeGrid | undefined;
const hubs: FakeUpstream[] = [];
afterEach(async () => {
  await grid?.close();
  grid = undefined;
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

type NewSessionHandler = (request: RecordedRequest) => FakeAnswer;

let nextId = 0;
const startsSession: NewSessionHandler = (request) => {
  const asked = (JSON.parse(request.body) as { capabilities: { alwaysMatch: Record<string, unknown> } })
    .capabilities.alwaysMatch;
  return jsonAnswer(200, {
    value: { sessionId: `hub-session-${++nextId}`, capabilities: { ...asked, browserVersion: '156.0.1' } },
  });
};

/** A fake hub: new sessions at /wd/hub/session, every other request answered "from hub". */
async function startHub(newSession: NewSessionHandler = startsSession): Promise<FakeUpstream> {
  const hub = await FakeUpstream.start();
  hub.respond = (request) => {
    if (request.method === 'POST' && request.path === `${BASE}/session`) return newSession(request);
    return jsonAnswer(200, { value: `from hub: ${request.method} ${request.path}` });
  };
  hubs.push(hub);
  return hub;
}

/** An address where nothing listens (a hub that is down). */
// Addresses handed out so far: the kernel may give a closed port out again, and two pools on one
// address are one hub to the retry rules.
const deadAddresses = new Set<string>();
async function deadAddress(): Promise<string> {
  for (;;) {
    const hub = await FakeUpstream.start();
    const { address } = hub;
    await hub.close();
    if (!deadAddresses.has(address)) {
      deadAddresses.add(address);
      return address;
    }
  }
}

const hubPool = (address: string, extra: Record<string, unknown> = {}) => ({
  kind: 'hub',
  url: `http://${address}${BASE}`,
  ...extra,
});

function startGrid(pools: Record<string, unknown>, browser: Record<string, unknown> = {}, timeouts = {}) {
  grid = startFakeGrid({
    config: {
      browsers: {
        chrome: { defaultVersion: '156.0', versions: { '156.0': { pools: Object.keys(pools) } }, ...browser },
      },
      pools,
      timeouts,
    },
  });
  return grid;
}

const postSession = (payload: unknown = W3C_CHROME, headers: Record<string, string> = {}) =>
  (grid as FakeGrid).app.request(`${BASE}/session`, jsonRequest('POST', payload, headers));

const newSessionPosts = (hub: FakeUpstream) =>
  hub.requests.filter((r) => r.method === 'POST' && r.path === `${BASE}/session`);
const attemptsMade = () =>
  (grid as FakeGrid).agent.dispatched.filter((d) => d.method === 'POST' && d.path === `${BASE}/session`)
    .length;

describe('hub pools: new sessions', () => {
  it('asks the hub under its base path with its own credentials, never the client’s', async () => {
    const hub = await startHub();
    startGrid({ hub: hubPool(hub.address, { username: 'hubuser', password: 'hub-pass' }) });
    const body = await created(await postSession(W3C_CHROME, { authorization: CLIENT_AUTH }));
    const [request] = newSessionPosts(hub);
    expect(request?.headers.authorization).toBe(basic('hubuser', 'hub-pass'));
    expect(request?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(request?.headers['accept-encoding']).toBe('identity');
    const check = grid?.deps.tokens.verify(body.value.sessionId, 'guest');
    expect(check?.ok && check.claims).toMatchObject({
      pool: 'hub',
      address: hub.address,
      upstreamId: 'hub-session-1',
    });
    expect(body.value.sessionId.length).toBeLessThanOrEqual(160);
    expect(JSON.stringify(body)).not.toContain('hub-session-1');
  });

  it('sends no Authorization at all to a hub without credentials', async () => {
    const hub = await startHub();
    startGrid({ hub: hubPool(hub.address) });
    await created(await postSession(W3C_CHROME, { authorization: CLIENT_AUTH }));
    expect(newSessionPosts(hub)[0]?.headers.authorization).toBeUndefined();
  });

  it('asks for the resolved version when the client gave a prefix or none, and never for an empty one', async () => {
    const hub = await startHub();
    startGrid(
      { hub: hubPool(hub.address) },
      { defaultVersion: '156.0', versions: { '156.0': { pools: ['hub'] }, '': { pools: ['hub'] } } },
    );
    const asked = () => JSON.parse(newSessionPosts(hub).at(-1)?.body ?? '{}').capabilities.alwaysMatch;
    await created(
      await postSession({ capabilities: { alwaysMatch: { browserName: 'chrome', browserVersion: '156' } } }),
    );
    expect(asked().browserVersion).toBe('156.0');
    await created(await postSession({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }));
    expect(asked().browserVersion).toBe('156.0');
    await created(
      await postSession({ capabilities: { alwaysMatch: { browserName: 'chrome', browserVersion: '' } } }),
    );
    expect(asked().browserVersion).toBe('156.0');
    expect(asked()).not.toHaveProperty('gridgate:options');
  });

  it('never sends an empty version when the matched version has no name', async () => {
    const hub = await startHub();
    startGrid({ hub: hubPool(hub.address) }, { defaultVersion: '', versions: { '': { pools: ['hub'] } } });
    await created(
      await postSession({
        capabilities: { alwaysMatch: { browserName: 'chrome', browserVersion: '', 'gridgate:options': {} } },
      }),
    );
    const asked = JSON.parse(newSessionPosts(hub)[0]?.body ?? '{}').capabilities.alwaysMatch;
    // Beside the client's capabilities only gridgate's key, by which a session a dead head asked for is found.
    expect(asked).toEqual({
      browserName: 'chrome',
      'gridgate:creation': expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });

  it('reads a gzip answer from a hub', async () => {
    const hub = await startHub(() => ({
      status: 200,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(
        JSON.stringify({ value: { sessionId: 'zipped', capabilities: {} } }),
      ) as unknown as string,
    }));
    startGrid({ hub: hubPool(hub.address) });
    const body = await created(await postSession());
    const check = grid?.deps.tokens.verify(body.value.sessionId, 'guest');
    expect(check?.ok && check.claims.upstreamId).toBe('zipped');
  });

  it('accepts a JSON Wire hub’s answer with the session ID at the top level', async () => {
    const hub = await startHub(() =>
      jsonAnswer(200, { sessionId: 'legacy-1', status: 0, value: { browserName: 'chrome' } }),
    );
    startGrid({ hub: hubPool(hub.address) });
    const body = await created(await postSession());
    expect(body.value.capabilities).toMatchObject({ browserName: 'chrome' });
  });

  it('takes the session ID from a Location header when the answer has no body', async () => {
    const hub = await startHub(() => ({
      status: 303,
      headers: { location: 'http://hub.example.com/wd/hub/session/located-123' },
      body: '',
    }));
    startGrid({ hub: hubPool(hub.address) });
    const body = await created(await postSession());
    const check = grid?.deps.tokens.verify(body.value.sessionId, 'guest');
    expect(check?.ok && check.claims.upstreamId).toBe('located-123');
  });

  it('routes to local and hub pools under one version', async () => {
    const hub = await startHub();
    startGrid({ hub: hubPool(hub.address, { maxSessions: 1 }), local: { kind: 'local', maxSessions: 1 } });
    await created(await postSession());
    await created(await postSession());
    expect(newSessionPosts(hub)).toHaveLength(1);
    expect(grid?.launcher.started).toHaveLength(1);
    expect(await grid?.sessions.inUse()).toEqual({ hub: 1, local: 1 });
  });
});

describe('hub pools: retries the ggr way', () => {
  const refuse = () =>
    jsonAnswer(404, { value: { error: 'session not created', message: 'Browser startup failure...' } });

  it('tries every hub that answers with a WebDriver error and reports the last error', async () => {
    const hub = await startHub(refuse);
    const pools = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((n) => [n, hubPool(hub.address)]));
    startGrid(pools);
    await expectW3cError(
      await postSession(),
      500,
      'session not created',
      'cannot create session chrome-156.0 on any hosts after 5 attempt(s), last host error was: Browser startup failure...',
    );
    expect(newSessionPosts(hub)).toHaveLength(5);
    expect(await grid?.sessions.inUse()).toEqual({});
  });

  it.each([
    ['{}', jsonAnswer(404, {})],
    ['a number as value', jsonAnswer(404, { value: 1 })],
    ['a message that is no string', jsonAnswer(404, { value: { message: true } })],
  ])('reports no host error when the refusal carries %s', async (_, answer) => {
    const hub = await startHub(() => answer);
    startGrid({ a: hubPool(hub.address) });
    await expectW3cError(
      await postSession(),
      500,
      'session not created',
      'cannot create session chrome-156.0 on any hosts after 1 attempt(s)',
    );
  });

  it('gives up on a hub that answers without JSON, with all its pools', async () => {
    const hub = await startHub(() => ({ status: 500, body: 'Internal Server Error' }));
    const pools = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((n) => [n, hubPool(hub.address)]));
    startGrid(pools);
    await expectW3cError(
      await postSession(),
      500,
      'session not created',
      'cannot create session chrome-156.0 on any hosts after 1 attempt(s)',
    );
    expect(newSessionPosts(hub)).toHaveLength(1);
  });

  it('tries every hub once when all regions are down, and never names one', async () => {
    const pools: Record<string, unknown> = {};
    for (const region of ['r1', 'r2', 'r3']) {
      for (const n of [1, 2, 3]) pools[`${region}-${n}`] = hubPool(await deadAddress(), { region });
    }
    startGrid(pools);
    const response = await postSession();
    const body = (await response.json()) as { value: { message: string } };
    expect(response.status).toBe(500);
    expect(body.value.message).toBe('cannot create session chrome-156.0 on any hosts after 9 attempt(s)');
    expect(attemptsMade()).toBe(9);
  });

  it('moves to another region after a hub cannot be reached', async () => {
    const live = await startHub();
    const pools: Record<string, unknown> = {
      live: hubPool(live.address, { region: 'south', maxSessions: 10 }),
    };
    // Heavy dead hubs in one region are almost always chosen first; one failure rules the region out.
    for (const n of [1, 2, 3])
      pools[`dead-${n}`] = hubPool(await deadAddress(), { region: 'north', weight: 100 });
    startGrid(pools);
    for (let i = 0; i < 5; i++) {
      const before = attemptsMade();
      await created(await postSession());
      expect(attemptsMade() - before).toBeLessThanOrEqual(2);
    }
    expect(newSessionPosts(live)).toHaveLength(5);
  });

  it('counts a hub that takes longer than its timeout as unreachable', async () => {
    const slow = await FakeUpstream.start({});
    hubs.push(slow);
    // Answers after 2 s: twenty times its 100 ms timeout.
    slow.respond = () =>
      new Promise<FakeAnswer>((resolve) => setTimeout(() => resolve(jsonAnswer(200, {})), 2000));
    const live = await startHub();
    startGrid({
      slow: hubPool(slow.address, { region: 'a', timeout: '100ms', weight: 1000 }),
      live: hubPool(live.address, { region: 'b' }),
    });
    await created(await postSession());
    expect(newSessionPosts(live)).toHaveLength(1);
  });

  it('tries the next hub after a share of timeouts.newSession when one takes the connection and never answers', async () => {
    const hung = await FakeUpstream.start({});
    hubs.push(hung);
    hung.respond = () => new Promise<FakeAnswer>(() => {});
    const live = await startHub();
    const pools = { hung: hubPool(hung.address, { weight: 1e6 }), live: hubPool(live.address) };
    startGrid(pools, {}, { newSession: '4s' });
    await created(await postSession());
    expect(newSessionPosts(hung)).toHaveLength(1);
    expect(newSessionPosts(live)).toHaveLength(1);
  });

  it.each([
    ['{}', {}],
    ['{"value":{}}', { value: {} }],
    ['{"value":[]}', { value: [] }],
    ['{"value":{"sessionId":123}}', { value: { sessionId: 123 } }],
  ])('answers 502 without retrying when a hub says 200 %s', async (_, answer) => {
    const hub = await startHub(() => jsonAnswer(200, answer));
    startGrid({ a: hubPool(hub.address), b: hubPool(hub.address) });
    await expectW3cError(await postSession(), 502, 'unknown error', /protocol error/);
    expect(newSessionPosts(hub)).toHaveLength(1);
    expect(await grid?.sessions.inUse()).toEqual({});
  });

  it('deletes the stray session a malformed answer names', async () => {
    const hub = await startHub(() => jsonAnswer(200, { value: { sessionId: 123 } }));
    startGrid({ a: hubPool(hub.address, { username: 'u', password: 'p' }) });
    await expectW3cError(await postSession(), 502, 'unknown error', /protocol error/);
    const deleted = hub.requests.find((r) => r.method === 'DELETE');
    expect(deleted?.path).toBe(`${BASE}/session/123`);
    expect(deleted?.headers.authorization).toBe(basic('u', 'p'));
  });
});

describe('hub pools: commands', () => {
  it('streams commands and DELETE to the hub’s base path with the hub’s credentials', async () => {
    const hub = await startHub();
    startGrid({ hub: hubPool(hub.address, { username: 'hubuser', password: 'hub-pass' }) });
    const { value } = await created(await postSession());
    const command = await grid?.app.request(
      `${BASE}/session/${value.sessionId}/url?x=1`,
      jsonRequest('POST', { url: 'about:blank' }, { authorization: CLIENT_AUTH }),
    );
    const check = grid?.deps.tokens.verify(value.sessionId, 'guest');
    const upstreamId = check?.ok ? check.claims.upstreamId : 'none';
    expect(await command?.json()).toEqual({ value: `from hub: POST ${BASE}/session/${upstreamId}/url?x=1` });
    const deleted = await grid?.app.request(`/session/${value.sessionId}`, { method: 'DELETE' });
    expect(deleted?.status).toBe(200);
    const [forwarded, deleteRequest] = hub.commands().filter((r) => r.path !== `${BASE}/session`);
    expect(forwarded?.headers.authorization).toBe(basic('hubuser', 'hub-pass'));
    expect(forwarded?.body).toBe(JSON.stringify({ url: 'about:blank' }));
    expect(deleteRequest).toMatchObject({ method: 'DELETE', path: `${BASE}/session/${upstreamId}` });
    expect(deleteRequest?.headers.authorization).toBe(basic('hubuser', 'hub-pass'));
    expect(await grid?.sessions.inUse()).toEqual({});
  });

  it('ends the hub’s session when gridgate ends it, and sends a client’s DELETE only once', async () => {
    const hub = await startHub();
    startGrid({ hub: hubPool(hub.address, { username: 'hubuser', password: 'hub-pass' }) });
    const idle = (await created(await postSession())).value.sessionId;
    const deletedByClient = (await created(await postSession())).value.sessionId;
    const upstreamOf = (id: string) => {
      const check = grid?.deps.tokens.verify(id, 'guest');
      return check?.ok ? check.claims.upstreamId : 'none';
    };
    await grid?.app.request(`${BASE}/session/${deletedByClient}`, { method: 'DELETE' });
    (grid as FakeGrid).clock.advance(grid?.deps.config.timeouts.idle ?? 0);
    await expireSessions((grid as FakeGrid).deps);

    const deletes = hub.requests
      .filter((r) => r.method === 'DELETE')
      .map((r) => [r.path, r.headers.authorization]);
    expect(deletes).toEqual([
      [`${BASE}/session/${upstreamOf(deletedByClient)}`, basic('hubuser', 'hub-pass')],
      [`${BASE}/session/${upstreamOf(idle)}`, basic('hubuser', 'hub-pass')],
    ]);
    expect(await grid?.sessions.inUse()).toEqual({});
  });

  it('refuses, offline, a signed session ID whose address is not the hub’s', async () => {
    const hub = await startHub();
    startGrid({ hub: hubPool(hub.address) });
    const forged = grid?.deps.tokens.sign(
      {
        key: '0011223344556677',
        pool: 'hub',
        address: '169.254.169.254:80',
        upstreamId: 'x',
        handle: '',
        devtools: '',
        createdAt: grid.clock.now(),
        maxAgeMs: 60_000,
      },
      'guest',
    ) as string;
    await expectW3cError(
      (await grid?.app.request(`${BASE}/session/${forged}/url`)) as Response,
      404,
      'invalid session id',
      /not served here/,
    );
    expect(grid?.agent.dispatched).toEqual([]);
  });
});
