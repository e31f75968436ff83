/** The benchmark's client: a path's URL may carry a prefix (ggr's /wd/hub), and a new session its own headers. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebDriverClient } from '../../bench/webdriver-client';

const seen: { method?: string; url?: string; headers: IncomingHttpHeaders }[] = [];
const server = createServer((request, response) => {
  seen.push({ method: request.method, url: request.url, headers: request.headers });
  request.resume();
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ value: request.method === 'POST' ? { sessionId: 'abc' } : 'ok' }));
});
const client = new WebDriverClient();
let origin = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('WebDriverClient', () => {
  it('sends a command under the prefix of the path’s URL', async () => {
    await client.send(`${origin}/wd/hub`, 'GET', '/session/abc/title');
    expect(seen.at(-1)?.url).toBe('/wd/hub/session/abc/title');
  });

  it('sends a command to the root of a bare origin', async () => {
    await client.send(origin, 'GET', '/session/abc/title');
    expect(seen.at(-1)?.url).toBe('/session/abc/title');
  });

  it('sends the new-session headers with POST /session only', async () => {
    const id = await client.newSession(
      `${origin}/wd/hub`,
      { browserName: 'chrome' },
      { authorization: 'Basic eA==' },
    );
    expect(id).toBe('abc');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/wd/hub/session' });
    expect(seen.at(-1)?.headers.authorization).toBe('Basic eA==');
    await client.send(`${origin}/wd/hub`, 'GET', `/session/${id}/url`);
    expect(seen.at(-1)?.headers.authorization).toBeUndefined();
  });
});
