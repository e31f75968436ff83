/** The status page's data endpoints through the whole app: what each user may see, and who may end a session. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HtpasswdUserDirectory } from '../../functions/adapters/htpasswd/htpasswd-user-directory';
import { pricesFor } from '../../functions/core/prices';
import type { createApp } from '../../functions/http/create-app';
import type { Overview, SessionDetail } from '../../functions/http/ui/ui-views';
import {
  expectW3cError,
  type FakeGrid,
  jsonRequest,
  type NewSessionAnswer,
  startFakeGrid,
  W3C_CHROME,
} from '../support/fake-grid';
import { CollectingLogger, type FakeLauncherOptions, FixedClock, jsonAnswer } from '../support/fakes';

/** A status-page error: a W3C body with the page's own headers (no-store). */
const expectPageError = (response: Response, status: number, error: string, message?: string | RegExp) =>
  expectW3cError(response, status, error, message, { page: true });

const dir = mkdtempSync(join(tmpdir(), 'gridgate-ui-'));
const usersFile = join(dir, 'users.htpasswd');
const sha = (password: string) => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
writeFileSync(usersFile, `alice:${sha('alice-pw')}\nbob:${sha('bob-pw')}\nroot:${sha('root-pw')}\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
const ALICE = { authorization: basic('alice:alice-pw') };
const BOB = { authorization: basic('bob:bob-pw') };
const ROOT = { authorization: basic('root:root-pw') };
const GUEST = {};
// A 1×1 PNG, as a browser's Take Screenshot answers: base64 in {"value": …}.
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let grid: FakeGrid;
let app: ReturnType<typeof createApp>;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * The fake grid with alice, bob and root (an admin) signing in, guests allowed, and pools of 3: the
 * uncoloured "local" and "blue", which only sessions asked in blue use.
 */
function startGrid(config: Record<string, unknown> = {}, launcher: FakeLauncherOptions = {}) {
  const users = HtpasswdUserDirectory.open(usersFile, {
    clock: new FixedClock(),
    logger: new CollectingLogger(),
    pollMs: 0,
  });
  const started = startFakeGrid({
    config: {
      usersFile,
      admins: ['root'],
      browsers: { chrome: { versions: { '156.0.7000.1': { pools: ['local', 'blue'] } } } },
      pools: {
        local: { kind: 'local', maxSessions: 3 },
        blue: { kind: 'local', maxSessions: 3, color: 'blue' },
      },
      ...config,
    },
    users,
    launcher,
  });
  grid = started;
  app = started.app;
  cleanups.push(
    () => started.close(),
    () => users.close(),
  );
}

async function newSessionAs(headers: Record<string, string>, user: string): Promise<string> {
  const response = await app.request('/session', jsonRequest('POST', W3C_CHROME, headers));
  const body = (await response.json()) as NewSessionAnswer;
  expect(response.status, JSON.stringify(body)).toBe(200);
  const check = grid.deps.tokens.verify(body.value.sessionId, user);
  if (!check.ok) throw new Error(`the session ID is not ${user}'s`);
  return check.claims.key;
}

async function overviewAs(headers: Record<string, string>): Promise<Overview> {
  const response = await app.request('/ui/api/overview', { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as Overview;
}

const sessionApi = (key: string) => `/ui/api/sessions/${key}`;

describe('the status page itself', () => {
  it('locks down its error answers as it does the page: 401, 404 and 405 under / and /ui', async () => {
    startGrid({ guest: null });
    const page = await app.request('/ui', { headers: ALICE });
    const errors = [
      await app.request('/ui', { headers: { authorization: basic('alice:wrong') } }),
      await app.request('/ui/api/overview'),
      await app.request(sessionApi('0123456789abcdef'), { headers: ALICE }),
      await app.request('/ui/api/nothing-here', { headers: ALICE }),
      await app.request('/ui/api/overview', { method: 'PUT', headers: ALICE }),
      await app.request('/', { headers: { authorization: basic('alice:wrong'), accept: 'text/html' } }),
    ];
    expect(errors.map((response) => response.status)).toEqual([401, 401, 404, 404, 405, 401]);
    for (const response of errors) {
      for (const header of [
        'content-security-policy',
        'x-content-type-options',
        'referrer-policy',
        'cache-control',
      ]) {
        expect(response.headers.get(header), `${response.status} ${header}`).toBe(page.headers.get(header));
      }
    }
    expect(page.headers.get('cache-control')).toBe('no-store');
    // WebDriver's own errors keep W3C's no-cache, with the same protection against sniffing.
    const webdriver = await app.request('/session/forged/url', { headers: ALICE });
    expect(webdriver.status).toBe(404);
    expect(webdriver.headers.get('cache-control')).toBe('no-cache');
    expect(webdriver.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves the page at /ui and at / to browsers, and stays a WebDriver 404 at / for clients', async () => {
    startGrid();
    const page = await app.request('/ui', { headers: ALICE });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script src="ui/app.js" defer></script>');
    expect(html).toContain('id="sessions"');

    const root = await app.request('/', { headers: { ...ALICE, accept: 'text/html,application/xhtml+xml' } });
    expect(await root.text()).toBe(html);
    await expectW3cError(await app.request('/', { headers: ALICE }), 404, 'unknown command');
    await expectW3cError(
      await app.request('/', { headers: { ...ALICE, accept: 'application/json' } }),
      404,
      'unknown command',
    );
  });

  it('serves the session page shell, its script and its style', async () => {
    startGrid();
    expect(await (await app.request('/ui?session=abc', { headers: ALICE })).text()).toContain('id="screen"');
    const script = await app.request('/ui/app.js', { headers: ALICE });
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('"ui/api/overview"');
    const style = await app.request('/ui/style.css', { headers: ALICE });
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('asks for credentials when guests are off, and on "sign in" when the caller is the guest', async () => {
    startGrid({ guest: null });
    const anonymous = await app.request('/ui');
    await expectPageError(anonymous, 401, 'invalid argument', 'authentication required');
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="gridgate"');
    await expectPageError(await app.request('/ui/api/overview'), 401, 'invalid argument');

    startGrid();
    expect((await app.request('/ui')).status).toBe(200);
    const signIn = await app.request('/ui?signin');
    await expectPageError(signIn, 401, 'invalid argument', 'sign in');
    expect(signIn.headers.get('www-authenticate')).toBe('Basic realm="gridgate"');
    expect((await app.request('/ui?signin', { headers: BOB })).status).toBe(200);
  });

  it('refuses other methods with unknown method', async () => {
    startGrid();
    await expectPageError(
      await app.request('/ui/api/overview', { method: 'POST', headers: ALICE }),
      405,
      'unknown method',
    );
    await expectPageError(
      await app.request(sessionApi('abc'), { method: 'PUT', headers: ALICE }),
      405,
      'unknown method',
    );
  });
});

describe('GET /ui/api/overview', () => {
  it('lists a session still starting (slot taken, browser not ready) to its owner and admins only', async () => {
    startGrid({}, { hold: true });
    const client = new AbortController();
    const pending = app.request('/session', {
      ...jsonRequest('POST', W3C_CHROME, ALICE),
      signal: client.signal,
    });
    await expect.poll(async () => (await overviewAs(ALICE)).starting.length).toBe(1);
    const [start] = (await overviewAs(ALICE)).starting;
    expect(start).toMatchObject({ user: 'alice', pool: 'local', ageMs: 0 });
    expect((await overviewAs(ROOT)).starting.map((s) => s.key)).toEqual([start?.key]);
    expect((await overviewAs(BOB)).starting).toEqual([]);
    expect((await overviewAs(ALICE)).sessions).toEqual([]);
    client.abort();
    await pending;
    await expect.poll(async () => (await overviewAs(ALICE)).starting).toEqual([]);
  });

  it('shows each user only their own sessions, the admin all of them, guests the guest’s', async () => {
    startGrid();
    const alices = await newSessionAs(ALICE, 'alice');
    const bobs = await newSessionAs(BOB, 'bob');
    const guests = await newSessionAs(GUEST, 'guest');
    const keys = async (headers: Record<string, string>) =>
      (await overviewAs(headers)).sessions.map((session) => session.key);

    expect(await keys(ALICE)).toEqual([alices]);
    expect(await keys(BOB)).toEqual([bobs]);
    expect(await keys(GUEST)).toEqual([guests]);
    expect((await keys(ROOT)).sort()).toEqual([alices, bobs, guests].sort());
    expect((await overviewAs(ROOT)).viewer).toEqual({ user: 'root', admin: true });
    expect((await overviewAs(ALICE)).viewer).toEqual({ user: 'alice', admin: false });
  });

  it('describes a session: user, browser and version, pool, colour, age, idle time and state', async () => {
    startGrid();
    const key = await newSessionAs({ ...ALICE, 'X-Grid-Color': 'blue' }, 'alice');
    grid.clock.advance(30_000);
    grid.deps.sessions.touch(key, grid.clock.now());
    grid.clock.advance(12_000);
    const uncoloured = await newSessionAs(ALICE, 'alice');

    const [session, other] = (await overviewAs(ALICE)).sessions;
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
    startGrid();
    const named = async (capabilities: Record<string, unknown>) => {
      const body = { capabilities: { alwaysMatch: { browserName: 'chrome', ...capabilities } } };
      const answer = await app.request('/session', jsonRequest('POST', body, ALICE));
      const { sessionId } = ((await answer.json()) as NewSessionAnswer).value;
      const check = grid.deps.tokens.verify(sessionId, 'alice');
      if (!check.ok) throw new Error('not alice’s session ID');
      return check.claims.key;
    };
    const grid4 = await named({ 'se:name': 'checkout works' });
    const selenoid = await named({ 'selenoid:options': { name: 'login fails' } });
    const unnamed = await named({});
    const names = Object.fromEntries((await overviewAs(ALICE)).sessions.map((s) => [s.key, s.name]));
    expect(names).toEqual({ [grid4]: 'checkout works', [selenoid]: 'login fails', [unnamed]: undefined });
  });

  it('shows pools with capacity, in use, queued and warm, and the version and uptime', async () => {
    startGrid();
    await newSessionAs(ALICE, 'alice');
    await newSessionAs(BOB, 'bob');
    await newSessionAs({ ...BOB, 'X-Grid-Color': 'blue' }, 'bob');
    grid.clock.advance(90_000);
    const page = await overviewAs(BOB);
    expect(page.pools).toEqual([
      { name: 'local', kind: 'local', capacity: 3, inUse: 2, queued: 0, warm: 0 },
      { name: 'blue', kind: 'local', color: 'blue', capacity: 3, inUse: 1, queued: 0, warm: 0 },
    ]);
    expect(page.version).toBe('9.9.9-test');
    expect(page.uptime).toBe('1m30s');
  });

  it('shows a local pool’s warm browsers, and a count that could not be read as unknown', async () => {
    startGrid({
      pools: {
        local: { kind: 'local', maxSessions: 3, warm: 2 },
        blue: { kind: 'local', maxSessions: 3, color: 'blue', warm: 1 },
      },
    });
    Object.assign(grid.launcher, {
      warmCount: (pool: string) => {
        if (pool === 'blue') throw new Error('the count is gone');
        return 2;
      },
    });
    const page = await overviewAs(BOB);
    expect(page.pools).toEqual([
      { name: 'local', kind: 'local', capacity: 3, inUse: 0, queued: 0, warm: 2 },
      { name: 'blue', kind: 'local', color: 'blue', capacity: 3, inUse: 0, queued: 0 },
    ]);
    expect(grid.logger.fieldsOf('UPSTREAM_ERROR')).toEqual([
      { pool: 'blue', operation: 'warm count', error: 'the count is gone' },
    ]);
  });

  it('lists recent failures with their reason, each user only their own', async () => {
    startGrid({}, { failStarts: true });
    const failed = await app.request('/session', jsonRequest('POST', W3C_CHROME, BOB));
    expect(failed.status).toBe(500);

    const [failure] = (await overviewAs(BOB)).failures;
    expect(failure?.user).toBe('bob');
    expect(failure?.reason).toMatch(/no capacity for a browser/);
    expect(failure?.at).toBe(grid.clock.now());
    expect((await overviewAs(ALICE)).failures).toEqual([]);
    expect((await overviewAs(ROOT)).failures).toEqual([failure]);
    // The grid's own logger still hears every failure.
    expect(grid.logger.fieldsOf('SESSION_FAILED')).toHaveLength(1);
  });
});

describe('GET /ui/api/sessions/{key}', () => {
  it('shows the owner and the admin the session and its events, and nobody else', async () => {
    startGrid();
    const key = await newSessionAs(ALICE, 'alice');
    const createdAt = grid.clock.now();
    grid.clock.advance(5_000);

    const response = await app.request(sessionApi(key), { headers: ALICE });
    expect(response.status).toBe(200);
    const { session } = (await response.json()) as { session: SessionDetail };
    expect(session).toMatchObject({ key, user: 'alice', poolKind: 'local', state: 'running', ageMs: 5_000 });
    expect(session.events[0]).toEqual({ at: createdAt, what: 'created' });
    // A local browser is not billed per session: no cost on its page.
    expect(session.cost).toBeUndefined();
    expect(session.events.map((event) => event.what).join('; ')).toMatch(/idle timeout.*maximum age/);

    expect((await app.request(sessionApi(key), { headers: ROOT })).status).toBe(200);
    await expectPageError(await app.request(sessionApi(key), { headers: BOB }), 404, 'invalid session id');
    await expectPageError(await app.request(sessionApi(key), { headers: GUEST }), 404, 'invalid session id');
    for (const unknown of ['0123456789abcdef', 'not.a.key', 'x'.repeat(65)]) {
      await expectPageError(
        await app.request(sessionApi(unknown), { headers: ROOT }),
        404,
        'invalid session id',
      );
    }
  });
});

describe('a cloud session’s estimated cost on its page', () => {
  // A 1 vCPU / 2 GB x86 task on Spot, as the ecs launcher reports one.
  const billing = { capacity: 'spot', vcpu: 1, memoryGb: 2, architecture: 'x86_64' } as const;
  const { fargateX86, spotFactor } = pricesFor(undefined);
  const perSecond = ((fargateX86.vcpuHour + 2 * fargateX86.gbHour) / 3600) * spotFactor;

  it('shows the cost so far while it runs and the whole of it once ended', async () => {
    const clock = new FixedClock();
    startGrid({}, { billing: { ...billing, billedFrom: clock.now() } });
    const created = await app.request('/session', jsonRequest('POST', W3C_CHROME, ALICE));
    const { sessionId } = ((await created.json()) as NewSessionAnswer).value;
    const check = grid.deps.tokens.verify(sessionId, 'alice');
    if (!check.ok) throw new Error('not alice’s session ID');
    const { key } = check.claims;
    const detail = async () =>
      ((await (await app.request(sessionApi(key), { headers: ALICE })).json()) as { session: SessionDetail })
        .session;

    // Fargate's one-minute minimum, then per second.
    grid.clock.advance(5_000);
    expect((await detail()).cost).toEqual({
      dollars: expect.closeTo(60 * perSecond, 12),
      billedSeconds: 60,
      capacity: 'spot',
      final: false,
    });
    // The overview's running table shows the same figure for it.
    expect((await overviewAs(ALICE)).sessions.find((session) => session.key === key)?.cost).toEqual(
      (await detail()).cost,
    );
    grid.clock.advance(85_000);
    const ended = await app.request(`/session/${sessionId}`, { method: 'DELETE', headers: ALICE });
    expect(ended.status).toBe(200);
    expect((await detail()).cost).toEqual({
      dollars: expect.closeTo(90 * perSecond, 12),
      billedSeconds: 90,
      capacity: 'spot',
      final: true,
    });
  });
});

describe('GET /ui/api/sessions/{key}/screenshot', () => {
  it('gives the owner the browser’s own screenshot as PNG, without counting it as activity', async () => {
    startGrid();
    const key = await newSessionAs(ALICE, 'alice');
    const upstream = grid.launcher.upstream();
    upstream.respond = (request) =>
      request.path.endsWith('/screenshot')
        ? jsonAnswer(200, { value: PNG_BASE64 })
        : jsonAnswer(200, { value: null });
    grid.clock.advance(20_000);

    const response = await app.request(`${sessionApi(key)}/screenshot`, { headers: ALICE });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from(PNG_BASE64, 'base64'));
    const [browserSession] = upstream.sessionIds;
    expect(upstream.commands().map((command) => `${command.method} ${command.path}`)).toEqual([
      `GET /session/${browserSession}/screenshot`,
    ]);
    expect((await grid.deps.sessions.get(key))?.lastActivityAt).toBe(grid.clock.now() - 20_000);

    await expectPageError(
      await app.request(`${sessionApi(key)}/screenshot`, { headers: BOB }),
      404,
      'invalid session id',
    );
    expect(upstream.commands()).toHaveLength(1);
  });

  it('answers a W3C error when the browser cannot take one', async () => {
    startGrid();
    const key = await newSessionAs(ALICE, 'alice');
    grid.launcher.upstream().respond = () =>
      jsonAnswer(500, { value: { error: 'unable to capture screen', message: 'no window', stacktrace: '' } });
    await expectPageError(
      await app.request(`${sessionApi(key)}/screenshot`, { headers: ALICE }),
      502,
      'unknown error',
      /HTTP 500: no window/,
    );
  });
});

describe('DELETE /ui/api/sessions/{key}', () => {
  it('lets the owner end a session: the browser is told, stopped and the slot freed', async () => {
    startGrid();
    const key = await newSessionAs(ALICE, 'alice');
    const upstream = grid.launcher.upstream();
    const handle = grid.launcher.started[0]?.handle;

    const response = await app.request(sessionApi(key), { method: 'DELETE', headers: ALICE });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ value: null });
    expect(upstream.commands().map((command) => command.method)).toEqual(['DELETE']);
    expect(grid.launcher.stops).toEqual([handle]);
    expect(await grid.deps.sessions.inUse()).toEqual({});
    expect((await grid.deps.sessions.get(key))?.endReason).toBe('deleted');
    expect(grid.logger.fieldsOf('SESSION_DELETED')).toEqual([expect.objectContaining({ session: key })]);
    expect((await overviewAs(ALICE)).sessions).toEqual([]);

    const detail = (await (await app.request(sessionApi(key), { headers: ALICE })).json()) as {
      session: SessionDetail;
    };
    expect(detail.session.state).toBe('ended');
    expect(detail.session.events.at(-1)?.what).toBe('ended: deleted');
    await expectPageError(
      await app.request(sessionApi(key), { method: 'DELETE', headers: ALICE }),
      404,
      'invalid session id',
      /already ended/,
    );
  });

  it('lets the admin end anyone’s session', async () => {
    startGrid();
    const key = await newSessionAs(BOB, 'bob');
    expect((await app.request(sessionApi(key), { method: 'DELETE', headers: ROOT })).status).toBe(200);
    expect((await grid.deps.sessions.get(key))?.endReason).toBe('deleted');
  });

  it('refuses everyone else with invalid session id and leaves the session running', async () => {
    startGrid();
    const key = await newSessionAs(ALICE, 'alice');
    for (const headers of [BOB, GUEST]) {
      await expectPageError(
        await app.request(sessionApi(key), { method: 'DELETE', headers }),
        404,
        'invalid session id',
      );
    }
    expect(grid.launcher.stops).toEqual([]);
    expect(grid.launcher.upstream().commands()).toEqual([]);
    expect((await grid.deps.sessions.get(key))?.endedAt).toBeUndefined();
  });

  it('still ends a session whose browser does not answer the DELETE', async () => {
    startGrid();
    const key = await newSessionAs(ALICE, 'alice');
    await grid.launcher.upstream().close();
    expect((await app.request(sessionApi(key), { method: 'DELETE', headers: ALICE })).status).toBe(200);
    expect((await grid.deps.sessions.get(key))?.endReason).toBe('deleted');
    expect(grid.logger.fieldsOf('UPSTREAM_ERROR')).toEqual([expect.objectContaining({ session: key })]);
  });
});
