/**
 * Hub sessions gridgate ended are refused by gridgate itself, with its reason: a hub's own 404 knows
 * nothing of idle timeouts or DELETEs, and a command for a session that is over needs no hub.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EndedSessions } from '../../functions/core/ended-sessions';
import { expireSessions } from '../../functions/use-cases/expire-sessions';
import {
  expectW3cError,
  type FakeGrid,
  jsonRequest,
  type NewSessionAnswer,
  startFakeGrid,
  W3C_CHROME,
} from '../support/fake-grid';
import { FakeUpstream, jsonAnswer } from '../support/fakes';

const BASE = '/wd/hub';

let grid: FakeGrid;
let hub: FakeUpstream;

/** A hub that knows its sessions, as Selenium Grid does: a command for one it ended is its own 404. */
async function startHub(): Promise<FakeUpstream> {
  const live = new Set<string>();
  let next = 0;
  const started = await FakeUpstream.start();
  started.respond = (request) => {
    if (request.method === 'POST' && request.path === `${BASE}/session`) {
      const sessionId = `hub-session-${++next}`;
      live.add(sessionId);
      return jsonAnswer(200, { value: { sessionId, capabilities: { browserName: 'chrome' } } });
    }
    const id = request.path.slice(`${BASE}/session/`.length).split('/')[0] as string;
    if (!live.has(id)) {
      return jsonAnswer(404, {
        value: {
          error: 'invalid session id',
          message: `Unable to find session with ID: ${id}`,
          stacktrace: '',
        },
      });
    }
    if (request.method === 'DELETE') live.delete(id);
    return jsonAnswer(200, { value: request.method === 'DELETE' ? null : 'from hub' });
  };
  return started;
}

beforeEach(async () => {
  hub = await startHub();
  grid = startFakeGrid({
    config: {
      browsers: { chrome: { defaultVersion: '156.0', versions: { '156.0': { pools: ['hub'] } } } },
      pools: { hub: { kind: 'hub', url: `http://${hub.address}${BASE}`, maxSessions: 10 } },
    },
  });
});
afterEach(async () => {
  await grid.close();
  await hub.close();
});

async function newHubSession(): Promise<string> {
  const response = await grid.app.request(`${BASE}/session`, jsonRequest('POST', W3C_CHROME));
  const body = (await response.json()) as NewSessionAnswer;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.value.sessionId;
}

const hubRequestsFor = (upstreamId: string) =>
  hub.requests.filter((r) => r.path.split('/')[4] === upstreamId).map((r) => r.method);

function upstreamOf(id: string): string {
  const check = grid.deps.tokens.verify(id, 'guest');
  if (!check.ok) throw new Error('the session ID does not verify');
  return check.claims.upstreamId;
}

describe('hub sessions gridgate ended', () => {
  it('refuses a deleted session’s next command itself, saying it was deleted; the hub hears nothing of it', async () => {
    const id = await newHubSession();
    expect((await grid.app.request(`${BASE}/session/${id}`, { method: 'DELETE' })).status).toBe(200);
    await expectW3cError(
      await grid.app.request(`${BASE}/session/${id}/title`),
      404,
      'invalid session id',
      'session ended: it was deleted',
    );
    await expectW3cError(
      await grid.app.request(`${BASE}/session/${id}`, { method: 'DELETE' }),
      404,
      'invalid session id',
      'session ended: it was deleted',
    );
    expect(hubRequestsFor(upstreamOf(id))).toEqual(['DELETE']);
  });

  it('refuses a session it ended at its idle timeout, with the timeout, asking the hub nothing more', async () => {
    const id = await newHubSession();
    grid.clock.advance(grid.deps.config.timeouts.idle);
    expect(await expireSessions(grid.deps)).toBe(1);
    await expectW3cError(
      await grid.app.request(`${BASE}/session/${id}/url`, jsonRequest('POST', { url: 'about:blank' })),
      404,
      'invalid session id',
      'session ended: no command for 5m (idle timeout)',
    );
    // The one DELETE is gridgate's own, ending the hub's session at the timeout.
    expect(hubRequestsFor(upstreamOf(id))).toEqual(['DELETE']);
  });

  it('remembers no more than its bound under many sessions, and still gives a forgotten one its reason', async () => {
    grid.deps.ended = new EndedSessions(20);
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const id = await newHubSession();
      expect((await grid.app.request(`${BASE}/session/${id}`, { method: 'DELETE' })).status).toBe(200);
      expect(grid.deps.ended.size).toBeLessThanOrEqual(20);
      ids.push(id);
    }
    expect(grid.deps.ended.size).toBe(20);
    for (const id of [ids[0], ids[179], ids[180], ids[199]] as string[]) {
      await expectW3cError(
        await grid.app.request(`${BASE}/session/${id}/title`),
        404,
        'invalid session id',
        'session ended: it was deleted',
      );
    }
    // Remembered ones are refused here; forgotten ones reach the hub, whose 404 the store's record explains.
    expect(hubRequestsFor(upstreamOf(ids[199] as string))).toEqual(['DELETE']);
    expect(hubRequestsFor(upstreamOf(ids[180] as string))).toEqual(['DELETE']);
    expect(hubRequestsFor(upstreamOf(ids[179] as string))).toEqual(['DELETE', 'GET']);
    expect(hubRequestsFor(upstreamOf(ids[0] as string))).toEqual(['DELETE', 'GET']);
    expect(await grid.sessions.inUse()).toEqual({});
  });
});
