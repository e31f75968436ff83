/**
 * How a test tells the grid how it went, through the whole app: Grid 4.41's se/event, the clouds' executor
 * scripts (answered here, never sent to the browser), the status page's PUT after the session, and the
 * capabilities that name and group it; each kept in the session's record and counted when it ends.
 */
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../functions/http/ui/ui-views';
import { expireSessions } from '../../functions/use-cases/expire-sessions';
import { expectW3cError, jsonRequest } from '../support/fake-grid';
import { ALICE, BOB, ROOT } from '../support/page-users';
import { expectPageError, sessionApi, statusPageGrids } from '../support/status-page-grid';

const startGrid = statusPageGrids();

async function sessionAs(grid: ReturnType<typeof startGrid>, headers: Record<string, string>, caps = {}) {
  const payload = { capabilities: { alwaysMatch: { browserName: 'chrome', ...caps } } };
  const response = await grid.app.request('/session', jsonRequest('POST', payload, headers));
  const body = (await response.json()) as { value: { sessionId: string } };
  expect(response.status, JSON.stringify(body)).toBe(200);
  const id = body.value.sessionId;
  const check = grid.deps.tokens.unverifiedClaims(id);
  if (!check) throw new Error('no claims');
  return { id, key: check.key };
}

describe('POST /session/{id}/se/event', () => {
  it('marks the session failed with the payload’s reason and answers as Grid 4.41 does', async () => {
    const grid = startGrid();
    const { id, key } = await sessionAs(grid, ALICE);
    const upstream = grid.launcher.upstream();
    const event = { eventType: 'test:failed', payload: { testName: 'LoginTest', error: 'no such element' } };
    const response = await grid.app.request(`/session/${id}/se/event`, jsonRequest('POST', event, ALICE));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { value: Record<string, unknown> };
    expect(body.value).toEqual({ success: true, eventType: 'test:failed', timestamp: expect.any(String) });
    expect(await grid.deps.sessions.get(key)).toMatchObject({
      result: { status: 'failed', reason: 'no such element' },
      name: 'LoginTest',
    });
    expect(upstream.commands()).toEqual([]);
  });

  it('answers other event types and changes nothing', async () => {
    const grid = startGrid();
    const { id, key } = await sessionAs(grid, ALICE);
    const response = await grid.app.request(
      `/wd/hub/session/${id}/se/event`,
      jsonRequest('POST', { eventType: 'test:started' }, ALICE),
    );
    expect(response.status).toBe(200);
    expect((await grid.deps.sessions.get(key))?.result).toBeUndefined();
  });

  it.each([
    ['no event type', { payload: {} }, /eventType/],
    ['an event type Grid refuses', { eventType: '1test' }, /must start with a letter/],
    ['an event type with a space', { eventType: 'test failed' }, /must start with a letter/],
    [
      'a payload that is not an object',
      { eventType: 'test:failed', payload: [1] },
      /payload must be a JSON object/,
    ],
    ['a body that is not JSON', '{"eventType":', /not valid JSON/],
  ])('refuses %s with invalid argument', async (_what, event, message) => {
    const grid = startGrid();
    const { id, key } = await sessionAs(grid, ALICE);
    const response = await grid.app.request(`/session/${id}/se/event`, jsonRequest('POST', event, ALICE));
    await expectW3cError(response, 400, 'invalid argument', message);
    expect((await grid.deps.sessions.get(key))?.result).toBeUndefined();
  });

  it('refuses another user’s session as invalid session id', async () => {
    const grid = startGrid();
    const { id, key } = await sessionAs(grid, ALICE);
    const event = { eventType: 'test:passed' };
    const response = await grid.app.request(`/session/${id}/se/event`, jsonRequest('POST', event, BOB));
    await expectW3cError(response, 404, 'invalid session id');
    expect((await grid.deps.sessions.get(key))?.result).toBeUndefined();
  });
});

describe('executor scripts on Execute Script', () => {
  it.each([
    ['sauce:job-result=failed', { result: { status: 'failed' } }],
    ['sauce:job-name=checkout works', { name: 'checkout works' }],
    [
      'browserstack_executor: {"action": "setSessionStatus", "arguments": {"status":"failed", "reason": "total was 41"}}',
      { result: { status: 'failed', reason: 'total was 41' } },
    ],
    ['browserstack_executor: {"action": "setSessionName", "arguments": {"name":"cart"}}', { name: 'cart' }],
    ['lambda-status=passed', { result: { status: 'passed' } }],
    ['lambda-build=nightly', { build: 'nightly' }],
  ])('answers %s itself, keeps it, and never sends it to the browser', async (script, marks) => {
    const grid = startGrid();
    const { id, key } = await sessionAs(grid, ALICE);
    const upstream = grid.launcher.upstream();
    const response = await grid.app.request(
      `/session/${id}/execute/sync`,
      jsonRequest('POST', { script, args: [] }, ALICE),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ value: null });
    expect(await grid.deps.sessions.get(key)).toMatchObject(marks);
    expect(upstream.commands()).toEqual([]);
  });

  it('sends every other script to the browser as it came, byte for byte', async () => {
    const grid = startGrid();
    const { id } = await sessionAs(grid, ALICE);
    const upstream = grid.launcher.upstream();
    const payload = '{"script":"return \'sauce:job-result=failed\'", "args":[ 1 ]}';
    const response = await grid.app.request(
      `/session/${id}/execute/sync`,
      jsonRequest('POST', payload, ALICE),
    );
    expect(response.status).toBe(200);
    expect(upstream.commands()).toMatchObject([{ method: 'POST', body: payload }]);
  });

  it.each([
    ['sauce:job-result=maybe', 400, 'invalid argument', /must be one of passed, true, failed, false/],
    ['browserstack_executor: {"action": "setSessionStatus"', 400, 'invalid argument', /JSON object/],
    [
      'browserstack_executor: {"action": "getSessionDetails"}',
      500,
      'unsupported operation',
      /getSessionDetails/,
    ],
  ])('refuses %s with a W3C error and sends nothing', async (script, status, error, message) => {
    const grid = startGrid();
    const { id } = await sessionAs(grid, ALICE);
    const upstream = grid.launcher.upstream();
    const response = await grid.app.request(
      `/session/${id}/execute/sync`,
      jsonRequest('POST', { script, args: [] }, ALICE),
    );
    await expectW3cError(response, status, error, message);
    expect(upstream.commands()).toEqual([]);
  });
});

describe('PUT /ui/api/sessions/{id}', () => {
  it('lets the owner mark an ended session by its session ID, and the admin by its key', async () => {
    const grid = startGrid();
    const { id, key } = await sessionAs(grid, ALICE);
    await grid.app.request(`/session/${id}`, { method: 'DELETE', headers: ALICE });
    const byOwner = await grid.app.request(
      sessionApi(id),
      jsonRequest('PUT', { status: 'failed', reason: 'flaky', build: 'b7' }, ALICE),
    );
    expect(byOwner.status).toBe(200);
    const view = ((await byOwner.json()) as { value: SessionView }).value;
    expect(view).toMatchObject({
      key,
      state: 'ended',
      result: { status: 'failed', reason: 'flaky' },
      build: 'b7',
    });
    const byAdmin = await grid.app.request(sessionApi(key), jsonRequest('PUT', { passed: true }, ROOT));
    expect(byAdmin.status).toBe(200);
    expect((await grid.deps.sessions.get(key))?.result).toEqual({ status: 'passed' });
  });

  it('gives another user the 404 of an unknown session, by ID and by key', async () => {
    const grid = startGrid();
    const { id, key } = await sessionAs(grid, ALICE);
    for (const named of [id, key]) {
      const response = await grid.app.request(
        sessionApi(named),
        jsonRequest('PUT', { status: 'passed' }, BOB),
      );
      await expectPageError(response, 404, 'invalid session id');
    }
    expect((await grid.deps.sessions.get(key))?.result).toBeUndefined();
  });

  it.each([
    [{ status: 'green' }, /status must be "passed" or "failed"/],
    [{ colour: 'red' }, /unknown field "colour"/],
    [{}, /names nothing/],
    [{ labels: { 'a b': 'x' } }, /label name/],
  ])('refuses %j with invalid argument', async (body, message) => {
    const grid = startGrid();
    const { key } = await sessionAs(grid, ALICE);
    const response = await grid.app.request(sessionApi(key), jsonRequest('PUT', body, ALICE));
    await expectPageError(response, 400, 'invalid argument', message);
  });
});

describe('name, build, project and labels from the capabilities', () => {
  it('reads the clouds’ spellings and Moon’s labels into the record', async () => {
    const grid = startGrid();
    const { key } = await sessionAs(grid, ALICE, {
      'bstack:options': { sessionName: 'login', buildName: 'b12', projectName: 'shop' },
      'moon:options': { labels: { team: 'payments' } },
    });
    expect(await grid.deps.sessions.get(key)).toMatchObject({
      name: 'login',
      build: 'b12',
      project: 'shop',
      labels: { team: 'payments' },
    });
  });

  it('refuses labels that are not names to strings before starting anything', async () => {
    const grid = startGrid();
    const payload = {
      capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': { labels: { team: 7 } } } },
    };
    const response = await grid.app.request('/session', jsonRequest('POST', payload, ALICE));
    await expectW3cError(response, 400, 'invalid argument', /gridgate:options.labels has label team/);
    expect(grid.launcher.started).toEqual([]);
  });
});

describe('counted when the session ends', () => {
  it('counts passed, failed and unknown per pool', async () => {
    const grid = startGrid();
    const failed = await sessionAs(grid, ALICE);
    const unknown = await sessionAs(grid, ALICE);
    await grid.app.request(
      `/session/${failed.id}/execute/sync`,
      jsonRequest('POST', { script: 'sauce:job-result=false', args: [] }, ALICE),
    );
    for (const { id } of [failed, unknown]) {
      await grid.app.request(`/session/${id}`, { method: 'DELETE', headers: ALICE });
    }
    const results = grid.metrics.counts.filter((count) => count.name === 'TestResults');
    expect(results.map((count) => count.dimensions?.outcome).sort()).toEqual(['failed', 'unknown']);
  });
});

describe('recording.keep "failed" at the end of a session', () => {
  const keepFailed = { recording: { video: true, keep: 'failed' } };
  const notKept = (grid: ReturnType<typeof startGrid>) =>
    grid.launcher.stopContexts.map((context) => context.videoNotKept);

  it('tells the launcher not to keep the video of a session that passed or said nothing', async () => {
    const grid = startGrid(keepFailed);
    const passed = await sessionAs(grid, ALICE);
    await grid.app.request(
      `/session/${passed.id}/se/event`,
      jsonRequest('POST', { eventType: 'test:passed' }, ALICE),
    );
    await grid.app.request(`/session/${passed.id}`, { method: 'DELETE', headers: ALICE });
    const silent = await sessionAs(grid, ALICE);
    await grid.app.request(`/session/${silent.id}`, { method: 'DELETE', headers: ALICE });
    expect(notKept(grid)).toEqual([
      'not kept: the test passed (recording.keep: failed)',
      'not kept: no failure was reported (recording.keep: failed)',
    ]);
  });

  it('keeps the video of a failed session, and of one cut short by its idle timeout', async () => {
    const grid = startGrid(keepFailed);
    const failed = await sessionAs(grid, ALICE);
    await grid.app.request(
      `/session/${failed.id}/execute/sync`,
      jsonRequest('POST', { script: 'lambda-status=failed', args: [] }, ALICE),
    );
    await grid.app.request(`/session/${failed.id}`, { method: 'DELETE', headers: ALICE });
    await sessionAs(grid, ALICE);
    grid.clock.advance(grid.deps.config.timeouts.idle + 1);
    expect(await expireSessions(grid.deps)).toBe(1);
    expect(grid.launcher.stopContexts.map((context) => context.reason)).toEqual(['deleted', 'idle timeout']);
    expect(notKept(grid)).toEqual([undefined, undefined]);
  });

  it('lets a session ask for it when the grid keeps all', async () => {
    const grid = startGrid({ recording: { video: true } });
    const asked = await sessionAs(grid, ALICE, { 'gridgate:options': { keep: 'failed' } });
    await grid.app.request(`/session/${asked.id}`, { method: 'DELETE', headers: ALICE });
    const other = await sessionAs(grid, ALICE);
    await grid.app.request(`/session/${other.id}`, { method: 'DELETE', headers: ALICE });
    expect(notKept(grid)).toEqual(['not kept: no failure was reported (recording.keep: failed)', undefined]);
  });
});
