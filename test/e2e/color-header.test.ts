/**
 * Environment colouring on real Chromium: a coloured session runs in its colour's pool and its browser
 * sends the colour header on every page request; an uncoloured one sends none.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';

/** A site on 127.0.0.1 that records the headers of every request it gets, by path. */
interface RecordingSite {
  url: string;
  seen: { path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

async function startRecordingSite(): Promise<RecordingSite> {
  const seen: RecordingSite['seen'] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push({ path, headers: req.headers });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>${path}</title></head><body>${path}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let grid: TestGrid;
let site: RecordingSite;

beforeAll(async () => {
  site = await startRecordingSite();
  // Both pools colour their browsers' traffic; "green" serves only green sessions (strict isolation).
  grid = await startTestGrid({
    browsers: { chrome: { aliases: ['chromium'], versions: { stable: { pools: ['baseline', 'green'] } } } },
    pools: {
      baseline: { kind: 'local', maxSessions: 2, colorHeader: true },
      green: { kind: 'local', color: 'green', maxSessions: 2, colorHeader: true },
    },
  });
});
afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
});

async function newSession(color?: string) {
  const response = await request(`${grid.url}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      capabilities: {
        alwaysMatch: { browserName: 'chrome', ...(color ? { 'gridgate:options': { color } } : {}) },
      },
    }),
  });
  return {
    status: response.statusCode,
    body: (await response.body.json()) as { value: { sessionId: string; error?: string; message?: string } },
  };
}

async function command(sessionId: string, method: 'GET' | 'POST' | 'DELETE', path = '', body?: unknown) {
  const response = await request(`${grid.url}/session/${sessionId}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.body.json()) as { value: unknown };
  expect(response.statusCode, JSON.stringify(answer)).toBe(200);
  return answer.value;
}

async function poolOf(sessionId: string): Promise<string> {
  const response = await request(`${grid.url}/host/${sessionId}`);
  return ((await response.body.json()) as { value: { pool: string } }).value.pool;
}

/** Opens two pages of the site in the session and answers the colour header each request carried. */
async function headersOfTwoNavigations(sessionId: string, tag: string) {
  await command(sessionId, 'POST', '/url', { url: `${site.url}/${tag}-first` });
  await command(sessionId, 'POST', '/url', { url: `${site.url}/${tag}-second` });
  const colorOf = (path: string) => {
    const requests = site.seen.filter((entry) => entry.path === path);
    expect(requests.length, `requests for ${path}`).toBeGreaterThan(0);
    return requests.map((entry) => entry.headers['x-grid-color']);
  };
  return [...colorOf(`/${tag}-first`), ...colorOf(`/${tag}-second`)];
}

describe('environment colouring on real Chromium', () => {
  it('runs a green session in the green pool and its browser sends X-Grid-Color: green on every navigation', async () => {
    const { status, body } = await newSession('green');
    expect(status, JSON.stringify(body)).toBe(200);
    const { sessionId } = body.value;
    try {
      expect(await poolOf(sessionId)).toBe('green');
      const colors = await headersOfTwoNavigations(sessionId, 'green');
      expect(colors.length).toBeGreaterThanOrEqual(2);
      expect(colors.every((color) => color === 'green')).toBe(true);
    } finally {
      await command(sessionId, 'DELETE');
    }
  });

  it('sends no colour header from an uncoloured session, which runs in the baseline pool', async () => {
    const { status, body } = await newSession();
    expect(status, JSON.stringify(body)).toBe(200);
    const { sessionId } = body.value;
    try {
      expect(await poolOf(sessionId)).toBe('baseline');
      const colors = await headersOfTwoNavigations(sessionId, 'plain');
      expect(colors.every((color) => color === undefined)).toBe(true);
    } finally {
      await command(sessionId, 'DELETE');
    }
  });

  it('runs a colour no pool has in the baseline pool, its browser still carrying the colour', async () => {
    const { status, body } = await newSession('feature-42');
    expect(status, JSON.stringify(body)).toBe(200);
    const { sessionId } = body.value;
    try {
      expect(await poolOf(sessionId)).toBe('baseline');
      const colors = await headersOfTwoNavigations(sessionId, 'fallback');
      expect(colors.every((color) => color === 'feature-42')).toBe(true);
    } finally {
      await command(sessionId, 'DELETE');
    }
  });

  it('refuses an invalid colour with invalid argument and starts no browser', async () => {
    const { status, body } = await newSession('Green_Team');
    expect(status).toBe(400);
    expect(body.value.error).toBe('invalid argument');
    expect(body.value.message).toContain('color "Green_Team" from gridgate:options.color may contain only');
    expect(grid.launcher.running()).toEqual([]);
  });
});
