/** Pools with colorHeader: the browser is told, through the driver's CDP command, to send the session's colour. */
import { afterEach, describe, expect, it } from 'vitest';
import { created, expectW3cError, type FakeGrid, jsonRequest, startFakeGrid } from '../support/fake-grid';
import { FakeUpstream, jsonAnswer, type RecordedRequest } from '../support/fakes';

let grid: FakeGrid | undefined;
const hubs: FakeUpstream[] = [];
afterEach(async () => {
  await grid?.close();
  grid = undefined;
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

function startGrid(pools: Record<string, unknown>, extra: Record<string, unknown> = {}): FakeGrid {
  grid = startFakeGrid({
    config: {
      browsers: {
        chrome: { versions: { '156.0': { pools: Object.keys(pools) } } },
        firefox: { versions: { '140.0': { pools: Object.keys(pools) } } },
      },
      pools,
      ...extra,
    },
  });
  return grid;
}

const session = (color?: string, browserName = 'chrome') => ({
  capabilities: {
    alwaysMatch: { browserName, ...(color ? { 'gridgate:options': { color } } : {}) },
  },
});

const post = (payload: unknown) => (grid as FakeGrid).app.request('/session', jsonRequest('POST', payload));

/** The DevTools commands a browser got through chromedriver's CDP endpoint, as {path, cmd, params}. */
function cdpCommands(requests: RecordedRequest[]) {
  return requests
    .filter((r) => r.method === 'POST' && r.path.endsWith('/cdp/execute'))
    .map((r) => ({ path: r.path, ...(JSON.parse(r.body) as { cmd: string; params: unknown }) }));
}

describe('colour header on Chromium', () => {
  it('has the browser send X-Grid-Color: <colour> right after the session is created', async () => {
    startGrid({ green: { kind: 'local', color: 'green', colorHeader: true } });
    await created(await post(session('green')));
    const browser = (grid as FakeGrid).launcher.upstream();
    const upstreamId = browser.sessionIds[0];
    expect(cdpCommands(browser.requests)).toEqual([
      { path: `/session/${upstreamId}/goog/cdp/execute`, cmd: 'Network.enable', params: {} },
      {
        path: `/session/${upstreamId}/goog/cdp/execute`,
        cmd: 'Network.setExtraHTTPHeaders',
        params: { headers: { 'X-Grid-Color': 'green' } },
      },
    ]);
  });

  it('uses the header the pool names, or the configured one for true', async () => {
    startGrid(
      { green: { kind: 'local', color: 'green', colorHeader: 'X-Env' } },
      { colors: { header: 'X-YX-COLOR' } },
    );
    await created(await post(session('green')));
    expect(cdpCommands((grid as FakeGrid).launcher.upstream().requests)[1]?.params).toEqual({
      headers: { 'X-Env': 'green' },
    });
  });

  it('carries the colour asked for on a baseline pool it fell back to, so the application can route it', async () => {
    startGrid({ base: { kind: 'local', colorHeader: true } });
    await created(await post(session('feature-42')));
    expect(cdpCommands((grid as FakeGrid).launcher.upstream().requests)[1]?.params).toEqual({
      headers: { 'X-Grid-Color': 'feature-42' },
    });
  });

  it('sends nothing for an uncoloured session, or from a pool without colorHeader', async () => {
    startGrid({ base: { kind: 'local', colorHeader: true }, green: { kind: 'local', color: 'green' } });
    await created(await post(session()));
    await created(await post(session('green')));
    const { started } = (grid as FakeGrid).launcher;
    expect(started.map((entry) => entry.request.pool.name)).toEqual(['base', 'green']);
    for (const entry of started) expect(cdpCommands(entry.upstream.requests)).toEqual([]);
  });
});

describe('colour header that cannot be set', () => {
  async function startHub(cdp: (request: RecordedRequest) => ReturnType<typeof jsonAnswer>) {
    const hub = await FakeUpstream.start();
    hub.respond = (request) =>
      request.path.endsWith('/cdp/execute') ? cdp(request) : jsonAnswer(200, { value: null });
    hubs.push(hub);
    return hub;
  }

  it('ends the session and fails the request when the hub refuses the CDP command', async () => {
    const hub = await startHub(() =>
      jsonAnswer(404, { value: { error: 'unknown command', message: 'Unable to find handler\nmore' } }),
    );
    startGrid({
      green: { kind: 'hub', url: `http://${hub.address}`, color: 'green', colorHeader: true },
    });
    const message = await expectW3cError(await post(session('green')), 500, 'session not created');
    expect(message).toContain(
      'cannot make the browser send the X-Grid-Color header: Network.enable was answered 404: Unable to find handler',
    );
    expect(message).toContain('pools of color "green" exist (green)');
    const upstreamId = hub.sessionIds[0];
    expect(hub.requests.some((r) => r.method === 'DELETE' && r.path === `/session/${upstreamId}`)).toBe(true);
    expect(await (grid as FakeGrid).sessions.inUse()).toEqual({});
    expect(await (grid as FakeGrid).sessions.running()).toEqual([]);
  });

  it('sends the CDP command to a hub with the hub’s own credentials', async () => {
    const hub = await startHub(() => jsonAnswer(200, { value: {} }));
    startGrid({
      green: {
        kind: 'hub',
        url: `http://${hub.address}`,
        username: 'grid',
        password: 's3cret',
        color: 'green',
        colorHeader: true,
      },
    });
    await created(await post(session('green')));
    const cdp = hub.requests.filter((r) => r.path.endsWith('/goog/cdp/execute'));
    expect(cdp).toHaveLength(2);
    for (const request of cdp) {
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from('grid:s3cret').toString('base64')}`);
    }
  });

  it('refuses a coloured Firefox session on a colorHeader pool and stops its browser', async () => {
    startGrid({ green: { kind: 'local', color: 'green', colorHeader: true } });
    await expectW3cError(
      await post(session('green', 'firefox')),
      500,
      'session not created',
      /cannot make the browser send the X-Grid-Color header: firefox has no DevTools command for it/,
    );
    const { launcher } = grid as FakeGrid;
    expect(launcher.stops).toEqual(['fake-1']);
    expect(launcher.upstream().isClosed).toBe(true);
  });
});
