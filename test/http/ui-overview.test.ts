/**
 * The status page's overview (GET /ui/api/overview) through the whole app: the sessions running and
 * starting, the pools and the recent failures, each user seeing only their own and the admin everyone's.
 */
import { describe, expect, it } from 'vitest';
import { jsonRequest, type NewSessionAnswer, W3C_CHROME } from '../support/fake-grid';
import { ALICE, BOB, GUEST, ROOT } from '../support/page-users';
import { newSessionAs, overviewAs, statusPageGrids } from '../support/status-page-grid';
import { eventually } from '../support/until';

const startGrid = statusPageGrids();

describe('GET /ui/api/overview', () => {
  it('lists a session still starting (slot taken, browser not ready) to its owner and admins only', async () => {
    const grid = startGrid({}, { hold: true });
    const client = new AbortController();
    const pending = grid.app.request('/session', {
      ...jsonRequest('POST', W3C_CHROME, ALICE),
      signal: client.signal,
    });
    await eventually(async () => expect((await overviewAs(grid, ALICE)).starting.length).toBe(1));
    const [start] = (await overviewAs(grid, ALICE)).starting;
    expect(start).toMatchObject({ user: 'alice', pool: 'local', ageMs: 0 });
    expect((await overviewAs(grid, ROOT)).starting.map((s) => s.key)).toEqual([start?.key]);
    expect((await overviewAs(grid, BOB)).starting).toEqual([]);
    expect((await overviewAs(grid, ALICE)).sessions).toEqual([]);
    client.abort();
    await pending;
    await eventually(async () => expect((await overviewAs(grid, ALICE)).starting).toEqual([]));
  });

  it('shows each user only their own sessions, the admin all of them, guests the guest’s', async () => {
    const grid = startGrid();
    const alices = await newSessionAs(grid, ALICE, 'alice');
    const bobs = await newSessionAs(grid, BOB, 'bob');
    const guests = await newSessionAs(grid, GUEST, 'guest');
    const keys = async (headers: Record<string, string>) =>
      (await overviewAs(grid, headers)).sessions.map((session) => session.key);

    expect(await keys(ALICE)).toEqual([alices]);
    expect(await keys(BOB)).toEqual([bobs]);
    expect(await keys(GUEST)).toEqual([guests]);
    expect((await keys(ROOT)).sort()).toEqual([alices, bobs, guests].sort());
    expect((await overviewAs(grid, ROOT)).viewer).toEqual({ user: 'root', admin: true });
    expect((await overviewAs(grid, ALICE)).viewer).toEqual({ user: 'alice', admin: false });
  });

  it('describes a session: user, browser and version, pool, colour, age, idle time and state', async () => {
    const grid = startGrid();
    const key = await newSessionAs(grid, { ...ALICE, 'X-Grid-Color': 'blue' }, 'alice');
    grid.clock.advance(30_000);
    grid.deps.sessions.touch(key, grid.clock.now());
    grid.clock.advance(12_000);
    const uncoloured = await newSessionAs(grid, ALICE, 'alice');

    const [session, other] = (await overviewAs(grid, ALICE)).sessions;
    expect(session).toMatchObject({
      key,
      user: 'alice',
      browserName: 'chrome',
      browserVersion: '156.0.7000.1',
      pool: 'blue',
      color: 'blue',
      state: 'running',
      ageMs: 42_000,
      idleMs: 12_000,
    });
    expect(other).toMatchObject({ key: uncoloured, pool: 'local', ageMs: 0, idleMs: 0 });
    expect(other).not.toHaveProperty('color');
    // Local browsers are not billed per session: no cost, in the overview as on the session's page.
    expect(session).not.toHaveProperty('cost');
    expect(other).not.toHaveProperty('cost');
  });

  it('shows the test’s name a session was asked with (se:name, selenoid:options.name)', async () => {
    const grid = startGrid();
    const named = async (capabilities: Record<string, unknown>) => {
      const body = { capabilities: { alwaysMatch: { browserName: 'chrome', ...capabilities } } };
      const answer = await grid.app.request('/session', jsonRequest('POST', body, ALICE));
      const { sessionId } = ((await answer.json()) as NewSessionAnswer).value;
      const check = grid.deps.tokens.verify(sessionId, 'alice');
      if (!check.ok) throw new Error('not alice’s session ID');
      return check.claims.key;
    };
    const grid4 = await named({ 'se:name': 'checkout works' });
    const selenoid = await named({ 'selenoid:options': { name: 'login fails' } });
    const unnamed = await named({});
    const names = Object.fromEntries((await overviewAs(grid, ALICE)).sessions.map((s) => [s.key, s.name]));
    expect(names).toEqual({ [grid4]: 'checkout works', [selenoid]: 'login fails', [unnamed]: undefined });
  });

  it('shows pools with capacity, in use, queued and warm, and the version and uptime', async () => {
    const grid = startGrid();
    await newSessionAs(grid, ALICE, 'alice');
    await newSessionAs(grid, BOB, 'bob');
    await newSessionAs(grid, { ...BOB, 'X-Grid-Color': 'blue' }, 'bob');
    grid.clock.advance(90_000);
    const page = await overviewAs(grid, BOB);
    expect(page.pools).toEqual([
      { name: 'local', kind: 'local', capacity: 3, inUse: 2, queued: 0, warm: 0 },
      { name: 'blue', kind: 'local', color: 'blue', capacity: 3, inUse: 1, queued: 0, warm: 0 },
    ]);
    expect(page.version).toBe('9.9.9-test');
    expect(page.uptime).toBe('1m30s');
  });

  it('shows a local pool’s warm browsers, and a count that could not be read as unknown', async () => {
    const grid = startGrid({
      pools: {
        local: { kind: 'local', maxSessions: 3, warm: 2 },
        blue: { kind: 'local', maxSessions: 3, color: 'blue', warm: 1 },
      },
    });
    grid.deps.runtimes.local = {
      launcher: grid.launcher,
      warm: {
        warmCount: (pool: string) => {
          if (pool === 'blue') throw new Error('the count is gone');
          return 2;
        },
      },
    };
    const page = await overviewAs(grid, BOB);
    expect(page.pools).toEqual([
      { name: 'local', kind: 'local', capacity: 3, inUse: 0, queued: 0, warm: 2 },
      { name: 'blue', kind: 'local', color: 'blue', capacity: 3, inUse: 0, queued: 0 },
    ]);
    expect(grid.logger.fieldsOf('UPSTREAM_ERROR')).toEqual([
      { pool: 'blue', operation: 'warm count', error: 'the count is gone' },
    ]);
  });

  it('lists recent failures with their reason, each user only their own', async () => {
    const grid = startGrid({}, { failStarts: true });
    const failed = await grid.app.request('/session', jsonRequest('POST', W3C_CHROME, BOB));
    expect(failed.status).toBe(500);

    const [failure] = (await overviewAs(grid, BOB)).failures;
    expect(failure?.user).toBe('bob');
    expect(failure?.reason).toMatch(/no capacity for a browser/);
    expect(failure?.at).toBe(grid.clock.now());
    expect((await overviewAs(grid, ALICE)).failures).toEqual([]);
    expect((await overviewAs(grid, ROOT)).failures).toEqual([failure]);
    // The grid's own logger still hears every failure.
    expect(grid.logger.fieldsOf('SESSION_FAILED')).toHaveLength(1);
  });
});
