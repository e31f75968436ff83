import { afterEach, describe, expect, it } from 'vitest';
import { expectW3cError, type FakeGrid, jsonRequest, newSession, startFakeGrid } from '../support/fake-grid';

let grid: FakeGrid;
afterEach(() => grid.close());

interface StatusBody {
  value: {
    ready: boolean;
    message: string;
    build: { version: string };
    waiting: number;
    pools: {
      name: string;
      kind: string;
      maxSessions: number;
      inUse: number;
      waiting: number;
      region?: string;
      color?: string;
      warm?: number;
    }[];
  };
}

async function status(path = '/status'): Promise<StatusBody> {
  const response = await grid.app.request(path);
  expect(response.status).toBe(200);
  return (await response.json()) as StatusBody;
}

describe('GET /status', () => {
  it('says the grid is ready and lists its pools with sessions in use', async () => {
    grid = startFakeGrid();
    expect(await status()).toEqual({
      value: {
        ready: true,
        message: 'gridgate is ready: 0 of 2 sessions in use',
        build: { version: '9.9.9-test' },
        waiting: 0,
        pools: [{ name: 'local', kind: 'local', maxSessions: 2, inUse: 0, waiting: 0 }],
      },
    });
  });

  it('counts sessions in use per pool', async () => {
    grid = startFakeGrid();
    await newSession(grid);
    const body = await status();
    expect(body.value.pools).toEqual([
      { name: 'local', kind: 'local', maxSessions: 2, inUse: 1, waiting: 0 },
    ]);
    expect(body.value.ready).toBe(true);
    expect(body.value.message).toBe('gridgate is ready: 1 of 2 sessions in use');
  });

  it('says the grid is not ready at capacity, and ready again when a session ends', async () => {
    grid = startFakeGrid();
    const first = await newSession(grid);
    await newSession(grid);
    expect((await status()).value).toMatchObject({ ready: false, message: 'gridgate is at capacity' });
    await grid.app.request(`/session/${first}`, { method: 'DELETE' });
    expect((await status()).value.ready).toBe(true);
  });

  it('shows each pool’s region and colour', async () => {
    grid = startFakeGrid({
      config: {
        browsers: { chrome: { versions: { '156.0': { pools: ['eu', 'blue'] } } } },
        pools: {
          eu: { kind: 'local', region: 'eu-west-1' },
          blue: { kind: 'local', color: 'blue', maxSessions: 1 },
        },
      },
    });
    expect((await status('/wd/hub/status')).value.pools).toEqual([
      { name: 'eu', kind: 'local', maxSessions: 4, inUse: 0, waiting: 0, region: 'eu-west-1' },
      { name: 'blue', kind: 'local', maxSessions: 1, inUse: 0, waiting: 0, color: 'blue' },
    ]);
  });
});

describe('GET /status: warm browsers', () => {
  it('shows a local pool’s warm browsers, and 0 for one without `warm`, which is not asked', async () => {
    grid = startFakeGrid({
      config: {
        browsers: { chrome: { versions: { '156.0': { pools: ['ready', 'cold'] } } } },
        pools: { ready: { kind: 'local', warm: 2 }, cold: { kind: 'local' } },
      },
    });
    // The local launcher's count is synchronous: a number, as ChromedriverLauncher.warmCount answers.
    const asked: string[] = [];
    grid.deps.runtimes.local = {
      launcher: grid.launcher,
      warm: {
        warmCount: (pool: string) => {
          asked.push(pool);
          return 2;
        },
      },
    };
    expect((await status()).value.pools).toEqual([
      { name: 'ready', kind: 'local', maxSessions: 4, inUse: 0, waiting: 0, warm: 2 },
      { name: 'cold', kind: 'local', maxSessions: 4, inUse: 0, waiting: 0, warm: 0 },
    ]);
    expect(asked).toEqual(['ready']);
  });

  it('leaves `warm` out for launchers that keep no browsers ahead of demand', async () => {
    grid = startFakeGrid({ config: { pools: { local: { kind: 'local', warm: 1 } } } });
    expect((await status()).value.pools[0]).not.toHaveProperty('warm');
  });
});

describe('GET /ping', () => {
  it('answers with the ggr fields: uptime, last reload, requests, sessions and version', async () => {
    grid = startFakeGrid();
    const startedAt = grid.clock.now();
    await newSession(grid);
    grid.clock.advance(90_000);
    const response = await grid.app.request('/ping');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      uptime: '1m30s',
      lastReloadTime: new Date(startedAt).toISOString(),
      numRequests: 1,
      numSessions: 1,
      openSessions: 1,
      version: '9.9.9-test',
    });
  });

  it('counts as ggr does: sessions created since start, and requests but not health checks or unknown paths', async () => {
    grid = startFakeGrid();
    const first = await newSession(grid);
    await newSession(grid);
    await grid.app.request(`/session/${first}/url`);
    await grid.app.request(`/session/${first}`, { method: 'DELETE' });
    const refused = await grid.app.request(
      '/session',
      jsonRequest('POST', { capabilities: { alwaysMatch: { browserName: 'mosaic' } } }),
    );
    expect(refused.status).toBe(500);
    await grid.app.request('/quota');
    for (const path of ['/status', '/wd/hub/status', '/ping', '/nope']) await grid.app.request(path);
    expect(await (await grid.app.request('/wd/hub/ping')).json()).toMatchObject({
      numRequests: 6,
      numSessions: 2,
      openSessions: 1,
    });
  });

  it('answers under /wd/hub as well', async () => {
    grid = startFakeGrid();
    expect(await (await grid.app.request('/wd/hub/ping')).json()).toMatchObject({
      numRequests: 0,
      numSessions: 0,
      openSessions: 0,
    });
  });
});

describe('GET /host/{id}', () => {
  it('tells the session’s owner where the session runs', async () => {
    grid = startFakeGrid();
    const id = await newSession(grid);
    const upstream = grid.launcher.upstream();
    for (const path of [`/host/${id}`, `/wd/hub/host/${id}`]) {
      const response = await grid.app.request(path);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        value: {
          pool: 'local',
          kind: 'local',
          address: upstream.address,
          browserSessionId: upstream.sessionIds[0],
          createdAt: new Date(grid.clock.now()).toISOString(),
        },
      });
    }
    expect(upstream.commands()).toEqual([]);
  });

  it('answers 404 invalid session id to anyone else', async () => {
    grid = startFakeGrid();
    const id = await newSession(grid);
    const check = grid.deps.tokens.verify(id, 'guest');
    if (!check.ok) throw new Error('the grid’s own session ID does not verify');
    const alicesId = grid.deps.tokens.sign(check.claims, 'alice');
    await expectW3cError(await grid.app.request(`/host/${alicesId}`), 404, 'invalid session id');
  });
});
