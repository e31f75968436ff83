import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectW3cError, type FakeGrid, jsonRequest, newSession, startFakeGrid } from '../support/fake-grid';
import { type FakeUpstream, jsonAnswer } from '../support/fakes';

let grid: FakeGrid;
let id: string;
let upstream: FakeUpstream;
let upstreamId: string;

beforeEach(async () => {
  grid = startFakeGrid();
  id = await newSession(grid);
  upstream = grid.launcher.upstream();
  upstreamId = upstream.sessionIds[0] as string;
});
afterEach(() => grid.close());

describe('proxied commands', () => {
  it('forwards method, path, query and body to the session’s browser', async () => {
    const payload = JSON.stringify({ url: 'http://127.0.0.1:8080/page?a=1' });
    const response = await grid.app.request(
      `/session/${id}/url?trace=1&x=%20y`,
      jsonRequest('POST', payload),
    );
    expect(response.status).toBe(200);
    const [command] = upstream.commands();
    expect(command).toMatchObject({
      method: 'POST',
      path: `/session/${upstreamId}/url?trace=1&x=%20y`,
      body: payload,
    });
    expect(upstream.commands()).toHaveLength(1);
  });

  it('forwards a body sent without a Content-Length', async () => {
    const payload = JSON.stringify({ script: 'return 1', args: [] });
    const response = await grid.app.request(`/session/${id}/execute/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob([payload]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(200);
    expect(upstream.commands()[0]).toMatchObject({ method: 'POST', body: payload });
  });

  it.each(['GET', 'DELETE'])('forwards %s commands without a body', async (method) => {
    await grid.app.request(`/session/${id}/window`, { method });
    expect(upstream.commands()[0]).toMatchObject({ method, path: `/session/${upstreamId}/window`, body: '' });
  });

  it('forwards commands on the session itself and deep paths', async () => {
    await grid.app.request(`/session/${id}/element/abc-123/property/value`);
    await grid.app.request(`/session/${id}`);
    expect(upstream.commands().map((c) => c.path)).toEqual([
      `/session/${upstreamId}/element/abc-123/property/value`,
      `/session/${upstreamId}`,
    ]);
  });

  it('forwards commands sent under /wd/hub to the browser’s own paths', async () => {
    const wdId = await newSession(grid, undefined, '/wd/hub');
    const wdUpstream = grid.launcher.upstream();
    await grid.app.request(`/wd/hub/session/${wdId}/title`);
    expect(wdUpstream.commands().map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET /session/${wdUpstream.sessionIds[0]}/title`,
    ]);
  });

  it('accepts a session ID created under one base path on the other', async () => {
    await grid.app.request(`/wd/hub/session/${id}/title`);
    expect(upstream.commands().map((c) => c.path)).toEqual([`/session/${upstreamId}/title`]);
  });

  it('sends the upstream’s own Host, drops hop-by-hop headers and the grid’s credentials and cookies, keeps the rest', async () => {
    await grid.app.request(`/session/${id}/cookie`, {
      method: 'POST',
      headers: {
        host: 'grid.example.test',
        authorization: 'Basic Z3Vlc3Q6c2VjcmV0',
        'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
        connection: 'keep-alive, x-per-hop',
        'x-per-hop': 'dropped because Connection names it',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        upgrade: 'h2c',
        'content-type': 'application/json; charset=utf-8',
        accept: 'application/json',
        'user-agent': 'selenium/4.46.0 (java)',
        'x-request-id': 'abc',
        cookie: 'grid-session=secret',
      },
      body: '{"cookie":{"name":"a","value":"b"}}',
    });
    const [command] = upstream.commands();
    expect(command?.body).toBe('{"cookie":{"name":"a","value":"b"}}');
    expect(command?.headers.host).toBe(upstream.address);
    expect(command?.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      accept: 'application/json',
      'user-agent': 'selenium/4.46.0 (java)',
      'x-request-id': 'abc',
    });
    for (const dropped of [
      'authorization',
      'cookie',
      'proxy-authorization',
      'x-per-hop',
      'keep-alive',
      'te',
      'upgrade',
    ]) {
      expect(command?.headers, dropped).not.toHaveProperty(dropped);
    }
  });

  it('returns the upstream’s status, headers and body unchanged', async () => {
    const body =
      '{"value":{"error":"no such element","message":"Unable to locate element","stacktrace":"#0 ..."}}';
    upstream.respond = () => ({
      status: 404,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-upstream': 'chromedriver',
        'cache-control': 'no-cache',
      },
      body,
    });
    const response = await grid.app.request(
      `/session/${id}/element`,
      jsonRequest('POST', { using: 'css selector', value: '#x' }),
    );
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-upstream')).toBe('chromedriver');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    // Node's server adds Connection and Keep-Alive to its answer: they describe that hop only.
    expect(response.headers.get('keep-alive')).toBeNull();
    expect(response.headers.get('connection')).toBeNull();
    expect(await response.text()).toBe(body);
  });

  it('returns a large answer byte for byte', async () => {
    const screenshot = Buffer.alloc(3 * 1024 * 1024, 'iVBORw0KGgo').toString('utf8');
    upstream.respond = () => jsonAnswer(200, { value: screenshot });
    const response = await grid.app.request(`/session/${id}/screenshot`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(JSON.stringify({ value: screenshot }));
  });

  it('returns a 204 from the browser without a body', async () => {
    upstream.respond = () => ({ status: 204, body: '' });
    const response = await grid.app.request(`/session/${id}/timeouts`, jsonRequest('POST', { implicit: 0 }));
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it('notes activity on the session record', async () => {
    grid.clock.advance(42_000);
    await grid.app.request(`/session/${id}/title`);
    const [record] = await grid.sessions.running();
    expect(record?.lastActivityAt).toBe(grid.clock.now());
  });

  it('answers 404 invalid session id and ends the session when its browser has gone away', async () => {
    await upstream.close();
    await expectW3cError(
      await grid.app.request(`/session/${id}/title`),
      404,
      'invalid session id',
      /the browser exited or crashed/,
    );
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(await grid.sessions.inUse()).toEqual({});
    const check = grid.deps.tokens.verify(id, 'guest');
    expect(check.ok && (await grid.sessions.get(check.claims.key))?.endReason).toBe('browser exited');
    expect(grid.logger.events()).toContain('SESSION_ENDED');
  });

  it('says the browser was reclaimed by Fargate Spot, and when, once its platform marked it so', async () => {
    const check = grid.deps.tokens.verify(id, 'guest');
    if (!check.ok) throw new Error('the test session ID does not verify');
    await grid.sessions.markReclaimed(check.claims.handle, {
      at: Date.UTC(2026, 10, 29, 21, 0, 5),
      reason: 'SpotInterruption',
    });
    await upstream.close();
    await expectW3cError(
      await grid.app.request(`/session/${id}/title`),
      404,
      'invalid session id',
      'session ended: the browser was reclaimed by Fargate Spot at 2026-11-29T21:00:05.000Z (SpotInterruption)',
    );
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(await grid.sessions.inUse()).toEqual({});
    expect((await grid.sessions.get(check.claims.key))?.endReason).toBe('reclaimed');
  });

  it('never asks the store about reclaimed browsers while the browser answers', async () => {
    const asked = vi.spyOn(grid.sessions, 'reclaimed');
    await grid.app.request(`/session/${id}/title`);
    expect(asked).not.toHaveBeenCalled();
  });
});

describe('DELETE /session/{id}', () => {
  it('ends the session: the browser hears DELETE, is stopped, and the slot frees', async () => {
    const response = await grid.app.request(`/session/${id}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ value: null });
    expect(upstream.commands().map((c) => `${c.method} ${c.path}`)).toEqual([
      `DELETE /session/${upstreamId}`,
    ]);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(upstream.isClosed).toBe(true);
    expect(await grid.sessions.inUse()).toEqual({});
    expect(await grid.sessions.running()).toEqual([]);
    expect(grid.logger.events()).toContain('SESSION_DELETED');
  });

  it('ends the session under /wd/hub too', async () => {
    expect((await grid.app.request(`/wd/hub/session/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(await grid.sessions.inUse()).toEqual({});
  });

  it('answers a second DELETE with 404 invalid session id saying the session was deleted', async () => {
    await grid.app.request(`/session/${id}`, { method: 'DELETE' });
    await expectW3cError(
      await grid.app.request(`/session/${id}`, { method: 'DELETE' }),
      404,
      'invalid session id',
      /it was deleted/,
    );
    expect(grid.logger.fieldsOf('SESSION_DELETED')).toHaveLength(1);
  });

  it('answers a later command with 404 invalid session id saying the session was deleted', async () => {
    await grid.app.request(`/session/${id}`, { method: 'DELETE' });
    await expectW3cError(
      await grid.app.request(`/session/${id}/title`),
      404,
      'invalid session id',
      /it was deleted/,
    );
    expect(upstream.commands()).toHaveLength(1);
  });

  it('frees the slot for the next session', async () => {
    const second = await newSession(grid);
    await expectW3cError(
      await grid.app.request(
        '/session',
        jsonRequest('POST', {
          capabilities: {
            alwaysMatch: { browserName: 'chrome', 'gridgate:options': { queueTimeout: '0s' } },
          },
        }),
      ),
      500,
      'session not created',
      /full/,
    );
    await grid.app.request(`/session/${second}`, { method: 'DELETE' });
    await newSession(grid);
    expect(await grid.sessions.inUse()).toEqual({ local: 2 });
  });

  it('still ends the session when the browser answers the DELETE with an error', async () => {
    upstream.respond = () =>
      jsonAnswer(500, { value: { error: 'unknown error', message: 'chrome not reachable', stacktrace: '' } });
    const response = await grid.app.request(`/session/${id}`, { method: 'DELETE' });
    expect(response.status).toBe(500);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(await grid.sessions.inUse()).toEqual({});
  });
});
