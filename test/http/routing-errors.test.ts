import { afterEach, describe, expect, it } from 'vitest';
import {
  expectW3cError,
  type FakeGrid,
  jsonRequest,
  newSession,
  startFakeGrid,
  W3C_CHROME,
} from '../support/fake-grid';

let grid: FakeGrid;
afterEach(() => grid.close());

const LIMIT = 1024;

/** A body streamed in chunks with no Content-Length, as chunked transfer encoding sends it. */
function chunked(totalBytes: number, chunkBytes = 256): RequestInit {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      const size = Math.min(chunkBytes, totalBytes - sent);
      sent += size;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit;
}

/** A body of this many bytes that declares its length. */
function declared(totalBytes: number): RequestInit {
  const body = `{"capabilities":{}${' '.repeat(Math.max(0, totalBytes - 19))}}`;
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
    body,
  };
}

describe('unknown paths and methods', () => {
  it.each(['/', '/nope', '/sessions', '/wd/hub', '/wd/hub/nope', '/session/x/y/../../..'])(
    'answers GET %s with 404 unknown command',
    async (path) => {
      grid = startFakeGrid();
      await expectW3cError(await grid.app.request(path), 404, 'unknown command');
    },
  );

  it('names the method and path it did not know', async () => {
    grid = startFakeGrid();
    await expectW3cError(
      await grid.app.request('/grid/api/hub', { method: 'PUT' }),
      404,
      'unknown command',
      /PUT \/grid\/api\/hub/,
    );
  });

  it.each([
    ['GET', '/session'],
    ['PUT', '/session'],
    ['DELETE', '/session'],
    ['GET', '/wd/hub/session'],
    ['POST', '/status'],
    ['DELETE', '/wd/hub/status'],
    ['POST', '/ping'],
    ['POST', '/host/abc'],
  ])('answers %s %s with 405 unknown method', async (method, path) => {
    grid = startFakeGrid();
    await expectW3cError(await grid.app.request(path, { method }), 405, 'unknown method', new RegExp(method));
    expect(grid.launcher.started).toEqual([]);
  });
});

describe('request body limit', () => {
  it('answers an oversized new-session body with a Content-Length with 413 and a W3C body', async () => {
    grid = startFakeGrid({ config: { limits: { maxBodySize: LIMIT } } });
    await expectW3cError(
      await grid.app.request('/session', declared(LIMIT + 1)),
      413,
      'invalid argument',
      /1024 bytes/,
    );
    expect(grid.launcher.started).toEqual([]);
    expect(await grid.sessions.inUse()).toEqual({});
  });

  it('answers an oversized chunked new-session body with 413 and a W3C body', async () => {
    grid = startFakeGrid({ config: { limits: { maxBodySize: LIMIT } } });
    await expectW3cError(await grid.app.request('/session', chunked(LIMIT * 4)), 413, 'invalid argument');
    expect(grid.launcher.started).toEqual([]);
  });

  it('accepts a new-session body exactly at the limit', async () => {
    grid = startFakeGrid({ config: { limits: { maxBodySize: LIMIT } } });
    const body = JSON.stringify(W3C_CHROME);
    const padded = body.slice(0, -1) + ' '.repeat(LIMIT - body.length) + body.slice(-1);
    expect(padded.length).toBe(LIMIT);
    const response = await grid.app.request(
      '/session',
      jsonRequest('POST', padded, { 'content-length': String(LIMIT) }),
    );
    expect(response.status).toBe(200);
  });

  it('answers an oversized command body with a Content-Length with 413 before contacting the browser', async () => {
    grid = startFakeGrid({ config: { limits: { maxBodySize: LIMIT } } });
    const id = await newSession(grid);
    const upstream = grid.launcher.upstream();
    const dispatched = grid.agent.dispatched.length;
    await expectW3cError(
      await grid.app.request(`/session/${id}/element/value`, declared(LIMIT + 1)),
      413,
      'invalid argument',
    );
    expect(upstream.commands()).toEqual([]);
    expect(grid.agent.dispatched.length).toBe(dispatched);
  });

  it('answers an oversized chunked command body with 413 and a W3C body', async () => {
    grid = startFakeGrid({ config: { limits: { maxBodySize: LIMIT } } });
    const id = await newSession(grid);
    await expectW3cError(
      await grid.app.request(`/session/${id}/se/file`, chunked(LIMIT * 8)),
      413,
      'invalid argument',
    );
    // The session survives a refused upload.
    expect((await grid.app.request(`/session/${id}/title`)).status).toBe(200);
  });

  it('forwards a chunked command body under the limit whole', async () => {
    grid = startFakeGrid({ config: { limits: { maxBodySize: LIMIT } } });
    const id = await newSession(grid);
    const response = await grid.app.request(`/session/${id}/execute/sync`, chunked(LIMIT, 100));
    expect(response.status).toBe(200);
    expect(grid.launcher.upstream().commands()[0]?.body).toBe(' '.repeat(LIMIT));
  });
});

describe('authentication', () => {
  it('answers 401 with a Basic challenge and a W3C body when guest access is off', async () => {
    grid = startFakeGrid({ config: { guest: null } });
    const response = await grid.app.request('/session', jsonRequest('POST', W3C_CHROME));
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="gridgate"');
    await expectW3cError(response, 401, 'invalid argument', /authentication required/);
    expect(grid.launcher.started).toEqual([]);
  });
});
