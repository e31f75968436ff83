/**
 * A session's own page through the whole app (GET /ui/api/sessions/{key}): its details and events, a
 * cloud session's estimated cost, and its browser's screenshot, for its owner and the admin only.
 */
import { describe, expect, it } from 'vitest';
import { pricesFor } from '../../functions/core/prices';
import type { SessionDetail } from '../../functions/http/ui/ui-views';
import { jsonRequest, type NewSessionAnswer, W3C_CHROME } from '../support/fake-grid';
import { FixedClock, jsonAnswer } from '../support/fakes';
import { ALICE, BOB, GUEST, ROOT } from '../support/page-users';
import {
  expectPageError,
  newSessionAs,
  overviewAs,
  sessionApi,
  statusPageGrids,
} from '../support/status-page-grid';

const startGrid = statusPageGrids();
// A 1×1 PNG, as a browser's Take Screenshot answers: base64 in {"value": …}.
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('GET /ui/api/sessions/{key}', () => {
  it('shows the owner and the admin the session and its events, and nobody else', async () => {
    const grid = startGrid();
    const key = await newSessionAs(grid, ALICE, 'alice');
    const createdAt = grid.clock.now();
    grid.clock.advance(5_000);

    const response = await grid.app.request(sessionApi(key), { headers: ALICE });
    expect(response.status).toBe(200);
    const { session } = (await response.json()) as { session: SessionDetail };
    expect(session).toMatchObject({ key, user: 'alice', poolKind: 'local', state: 'running', ageMs: 5_000 });
    expect(session.events[0]).toEqual({ at: createdAt, what: 'created' });
    // A local browser is not billed per session: no cost on its page.
    expect(session.cost).toBeUndefined();
    expect(session.events.map((event) => event.what).join('; ')).toMatch(/idle timeout.*maximum age/);

    expect((await grid.app.request(sessionApi(key), { headers: ROOT })).status).toBe(200);
    await expectPageError(
      await grid.app.request(sessionApi(key), { headers: BOB }),
      404,
      'invalid session id',
    );
    await expectPageError(
      await grid.app.request(sessionApi(key), { headers: GUEST }),
      404,
      'invalid session id',
    );
    for (const unknown of ['0123456789abcdef', 'not.a.key', 'x'.repeat(65)]) {
      await expectPageError(
        await grid.app.request(sessionApi(unknown), { headers: ROOT }),
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
    const grid = startGrid({}, { billing: { ...billing, billedFrom: clock.now() } });
    const created = await grid.app.request('/session', jsonRequest('POST', W3C_CHROME, ALICE));
    const { sessionId } = ((await created.json()) as NewSessionAnswer).value;
    const check = grid.deps.tokens.verify(sessionId, 'alice');
    if (!check.ok) throw new Error('not alice’s session ID');
    const { key } = check.claims;
    const detail = async () =>
      (
        (await (await grid.app.request(sessionApi(key), { headers: ALICE })).json()) as {
          session: SessionDetail;
        }
      ).session;

    // Fargate's one-minute minimum, then per second.
    grid.clock.advance(5_000);
    expect((await detail()).cost).toEqual({
      dollars: expect.closeTo(60 * perSecond, 12),
      billedSeconds: 60,
      capacity: 'spot',
      final: false,
    });
    // The overview's running table shows the same figure for it.
    expect((await overviewAs(grid, ALICE)).sessions.find((session) => session.key === key)?.cost).toEqual(
      (await detail()).cost,
    );
    grid.clock.advance(85_000);
    const ended = await grid.app.request(`/session/${sessionId}`, { method: 'DELETE', headers: ALICE });
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
    const grid = startGrid();
    const key = await newSessionAs(grid, ALICE, 'alice');
    const upstream = grid.launcher.upstream();
    upstream.respond = (request) =>
      request.path.endsWith('/screenshot')
        ? jsonAnswer(200, { value: PNG_BASE64 })
        : jsonAnswer(200, { value: null });
    grid.clock.advance(20_000);

    const response = await grid.app.request(`${sessionApi(key)}/screenshot`, { headers: ALICE });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from(PNG_BASE64, 'base64'));
    const [browserSession] = upstream.sessionIds;
    expect(upstream.commands().map((command) => `${command.method} ${command.path}`)).toEqual([
      `GET /session/${browserSession}/screenshot`,
    ]);
    expect((await grid.deps.sessions.get(key))?.lastActivityAt).toBe(grid.clock.now() - 20_000);

    await expectPageError(
      await grid.app.request(`${sessionApi(key)}/screenshot`, { headers: BOB }),
      404,
      'invalid session id',
    );
    expect(upstream.commands()).toHaveLength(1);
  });

  it('answers a W3C error when the browser cannot take one', async () => {
    const grid = startGrid();
    const key = await newSessionAs(grid, ALICE, 'alice');
    grid.launcher.upstream().respond = () =>
      jsonAnswer(500, { value: { error: 'unable to capture screen', message: 'no window', stacktrace: '' } });
    await expectPageError(
      await grid.app.request(`${sessionApi(key)}/screenshot`, { headers: ALICE }),
      502,
      'unknown error',
      /HTTP 500: no window/,
    );
  });
});
