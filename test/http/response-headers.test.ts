import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeGrid, jsonRequest, newSession, startFakeGrid, W3C_CHROME } from '../support/fake-grid';
import { jsonAnswer } from '../support/fakes';

let grid: FakeGrid;

beforeEach(() => {
  grid = startFakeGrid();
});
afterEach(() => grid.close());

// W3C WebDriver §6.3 "Send a response": every answer is JSON in UTF-8 and must not be cached.
function expectWebDriverHeaders(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-cache');
}

describe('gridgate’s own answers carry the headers of W3C §6.3', () => {
  it('on a new session', async () => {
    const response = await grid.app.request('/session', jsonRequest('POST', W3C_CHROME));
    expect(response.status).toBe(200);
    expectWebDriverHeaders(response);
  });

  it.each(['/status', '/ping', '/quota', '/wd/hub/status'])('on GET %s', async (path) => {
    const response = await grid.app.request(path);
    expect(response.status).toBe(200);
    expectWebDriverHeaders(response);
  });

  it('on GET /host/{id}', async () => {
    const id = await newSession(grid);
    expectWebDriverHeaders(await grid.app.request(`/host/${id}`));
  });

  it.each([
    ['an unknown command', '/nothing-here', {}],
    ['a malformed new session', '/session', jsonRequest('POST', '{')],
    ['a forged session ID', '/session/forged/url', {}],
    ['a method the path does not allow', '/status', { method: 'PUT' }],
  ])('on errors: %s', async (_what, path, init) => {
    const response = await grid.app.request(path, init as RequestInit);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expectWebDriverHeaders(response);
  });
});

describe('DELETE /session/{id}', () => {
  it('passes the browser’s headers through, hop-by-hop ones aside', async () => {
    const id = await newSession(grid);
    grid.launcher.upstream().respond = () =>
      jsonAnswer(200, { value: null }, { 'cache-control': 'no-cache', 'x-upstream': 'chromedriver' });
    const response = await grid.app.request(`/session/${id}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expectWebDriverHeaders(response);
    expect(response.headers.get('x-upstream')).toBe('chromedriver');
    expect(response.headers.get('connection')).toBeNull();
    expect(response.headers.get('keep-alive')).toBeNull();
    expect(await response.json()).toEqual({ value: null });
  });
});
