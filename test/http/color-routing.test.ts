/** Environment colouring through the whole app: where a coloured request's session runs, and what it never does. */
import { afterEach, describe, expect, it } from 'vitest';
import { created, expectW3cError, type FakeGrid, jsonRequest, startFakeGrid } from '../support/fake-grid';
import type { FakeLauncherOptions } from '../support/fakes';

let grid: FakeGrid | undefined;
afterEach(async () => {
  await grid?.close();
  grid = undefined;
});

/** chrome 156.0 served by an uncoloured pool "base" and pools "green-eu" and "green-us" coloured green. */
function startGrid(extra: Record<string, unknown> = {}, launcher: FakeLauncherOptions = {}): FakeGrid {
  const pools = {
    base: { kind: 'local', maxSessions: 2 },
    'green-eu': { kind: 'local', color: 'green', region: 'eu', maxSessions: 1 },
    'green-us': { kind: 'local', color: 'green', region: 'us', maxSessions: 1 },
  };
  grid = startFakeGrid({
    config: {
      browsers: { chrome: { versions: { '156.0': { pools: Object.keys(pools) } } } },
      pools,
      colors: { baseDomains: ['grid.example.com'] },
      ...extra,
    },
    launcher,
  });
  return grid;
}

const chrome = (options: Record<string, unknown> = {}) => ({
  capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': options } },
});

function post(payload: unknown, headers: Record<string, string> = {}, url = 'http://localhost/session') {
  return (grid as FakeGrid).app.request(url, jsonRequest('POST', payload, headers));
}

/** The pools browsers were started in, in order. */
const startedIn = () => (grid as FakeGrid).launcher.started.map((entry) => entry.request.pool.name);

describe('colour routing: where a session runs', () => {
  it('runs a session asked for with gridgate:options.color in a pool of that colour, and records the colour', async () => {
    startGrid();
    await created(await post(chrome({ color: 'green' })));
    expect(startedIn()).toHaveLength(1);
    expect(startedIn()[0]).toMatch(/^green-(eu|us)$/);
    const [record] = await (grid as FakeGrid).sessions.running();
    expect(record?.color).toBe('green');
    expect((grid as FakeGrid).logger.fieldsOf('SESSION_CREATED')[0]).toMatchObject({ color: 'green' });
    expect((grid as FakeGrid).logger.fieldsOf('SESSION_REQUESTED')[0]).toMatchObject({ color: 'green' });
  });

  it('uses both pools of the colour, in any region, before anything else', async () => {
    startGrid();
    await created(await post(chrome({ color: 'green' })));
    await created(await post(chrome({ color: 'green' })));
    expect(startedIn().sort()).toEqual(['green-eu', 'green-us']);
  });

  it('reads the colour from the X-Grid-Color header', async () => {
    startGrid();
    await created(await post(chrome(), { 'X-Grid-Color': 'green' }));
    expect(startedIn()[0]).toMatch(/^green-/);
  });

  it('reads the colour from a header the config names', async () => {
    startGrid({ colors: { header: 'X-YX-COLOR' } });
    await created(await post(chrome(), { 'x-yx-color': 'green', 'X-Grid-Color': 'blue' }));
    expect(startedIn()[0]).toMatch(/^green-/);
  });

  it('reads the colour from the subdomain of a configured base domain, also behind a proxy', async () => {
    startGrid();
    await created(await post(chrome(), {}, 'http://green.grid.example.com/session'));
    await created(await post(chrome(), { 'x-forwarded-host': 'green.grid.example.com' }));
    expect(startedIn().sort()).toEqual(['green-eu', 'green-us']);
  });

  it('prefers the capability to the header and the header to the Host', async () => {
    startGrid();
    const url = 'http://blue.grid.example.com/session';
    await created(await post(chrome({ color: 'green' }), { 'X-Grid-Color': 'blue' }, url));
    await created(await post(chrome(), { 'X-Grid-Color': 'green' }, url));
    expect(startedIn().every((name) => name.startsWith('green-'))).toBe(true);
  });

  it('runs a colour no pool has on the uncoloured baseline, and records the colour it was asked with', async () => {
    startGrid();
    await created(await post(chrome({ color: 'feature-42' })));
    expect(startedIn()).toEqual(['base']);
    const [record] = await (grid as FakeGrid).sessions.running();
    expect(record?.color).toBe('feature-42');
  });

  it('tells the colour a session was asked with in /host/{id}, also when it runs on the baseline', async () => {
    startGrid();
    const { value } = await created(await post(chrome({ color: 'feature-42' })));
    const host = await (grid as FakeGrid).app.request(`/host/${value.sessionId}`);
    expect(await host.json()).toMatchObject({ value: { pool: 'base', color: 'feature-42' } });
  });

  it('runs an uncoloured request only on the uncoloured pools (strict isolation)', async () => {
    startGrid();
    await created(await post(chrome()));
    await created(await post(chrome()));
    // The baseline is full; the green pools have room but are not the request's.
    await expectW3cError(
      await post(chrome({ queueTimeout: '0s' })),
      500,
      'session not created',
      /pool base is full/,
    );
    expect(startedIn()).toEqual(['base', 'base']);
    const [record] = await (grid as FakeGrid).sessions.running();
    expect(record?.color).toBeUndefined();
  });

  it('runs an uncoloured request in any pool with loose isolation', async () => {
    startGrid({ colors: { isolation: 'loose' } });
    for (let i = 0; i < 4; i++) await created(await post(chrome()));
    expect(startedIn().sort()).toEqual(['base', 'base', 'green-eu', 'green-us']);
  });
});

describe('colour routing: never falling back from pools of the colour', () => {
  it('refuses when every pool of the colour is full past the queue timeout, saying so, with the baseline free', async () => {
    startGrid();
    await created(await post(chrome({ color: 'green' })));
    await created(await post(chrome({ color: 'green' })));
    const response = await post(chrome({ color: 'green', queueTimeout: '0s' }));
    expect(response.headers.get('retry-after')).toBe('10');
    const message = await expectW3cError(response, 500, 'session not created');
    expect(message).toMatch(/pool green-(eu|us) is full/);
    expect(message).toContain(
      'pools of color "green" exist (green-eu, green-us) but none could serve, and the session is not sent to uncolored pools',
    );
    expect(startedIn()).not.toContain('base');
  });

  it('refuses when every pool of the colour fails to start a browser, trying each once and never the baseline', async () => {
    startGrid({}, { failStarts: 2 });
    const message = await expectW3cError(
      await post(chrome({ color: 'green' })),
      500,
      'session not created',
      /no capacity for a browser/,
    );
    expect(message).toMatch(/pool green-(eu|us): .*pool green-(eu|us): /);
    expect(message).toContain('not sent to uncolored pools');
    expect(startedIn()).toEqual([]);
    // Both slots came back: the next green request gets a session.
    await created(await post(chrome({ color: 'green' })));
    expect(startedIn()[0]).toMatch(/^green-/);
  });

  it('falls back from nothing when the only pools serving the browser are of other colours', async () => {
    startGrid({
      browsers: { chrome: { versions: { '156.0': { pools: ['green-eu'] } } } },
    });
    await expectW3cError(
      await post(chrome({ color: 'blue' })),
      500,
      'session not created',
      'no pool serving chrome 156.0 has color "blue" and none is uncolored to fall back to; colors there: "green"',
    );
    await expectW3cError(
      await post(chrome()),
      500,
      'session not created',
      /every pool serving chrome 156.0 is colored and the request has no color/,
    );
    expect(startedIn()).toEqual([]);
  });
});

describe('colour routing: bad colours', () => {
  it.each([
    [
      'an upper-case capability',
      chrome({ color: 'Green' }),
      {},
      'http://localhost/session',
      /must be lower case/,
    ],
    [
      'a reserved header value',
      chrome(),
      { 'X-Grid-Color': 'release' },
      'http://localhost/session',
      /reserved name/,
    ],
    [
      'a capability that is not a string',
      chrome({ color: ['green'] }),
      {},
      'http://localhost/session',
      /must be a string/,
    ],
    [
      'a Host label with an underscore',
      chrome(),
      {},
      'http://feature_1.grid.example.com/session',
      /from Host feature_1\.grid\.example\.com may contain only/,
    ],
  ])('refuses %s with invalid argument before anything starts', async (_, payload, headers, url, message) => {
    startGrid();
    await expectW3cError(await post(payload, headers, url), 400, 'invalid argument', message);
    expect(startedIn()).toEqual([]);
    expect(await (grid as FakeGrid).sessions.inUse()).toEqual({});
  });
});

describe('colour routing: what it shows', () => {
  it('shows each pool’s colour in /status', async () => {
    startGrid();
    const status = (await (await (grid as FakeGrid).app.request('/status')).json()) as {
      value: { pools: { name: string; color?: string }[] };
    };
    expect(status.value.pools.map(({ name, color }) => ({ name, color }))).toEqual([
      { name: 'base', color: undefined },
      { name: 'green-eu', color: 'green' },
      { name: 'green-us', color: 'green' },
    ]);
  });

  it('adds the colour as a metrics dimension only when a pool has it', async () => {
    startGrid();
    await created(await post(chrome({ color: 'green' })));
    await created(await post(chrome({ color: 'made-up-by-a-client' })));
    const { counts } = (grid as FakeGrid).metrics;
    const requested = counts.filter((c) => c.name === 'SessionsRequested').map((c) => c.dimensions);
    expect(requested).toEqual([{ browser: 'chrome', color: 'green' }, { browser: 'chrome' }]);
    const createdCounts = counts.filter((c) => c.name === 'SessionsCreated').map((c) => c.dimensions);
    expect(createdCounts[0]).toEqual({
      browser: 'chrome',
      pool: expect.stringMatching(/^green-/),
      color: 'green',
    });
    expect(createdCounts[1]).toEqual({ browser: 'chrome', pool: 'base' });
  });
});
