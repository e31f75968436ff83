/**
 * The undici the Lambda bundles get (functions/entry/undici-lean.ts) against undici itself: the same
 * requests to a server on 127.0.0.1 give the same answers, through the global dispatcher and a given
 * one, and bad arguments fail alike.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as undici from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as lean from '../../functions/entry/undici-lean';

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ method: req.method, url: req.url, auth: req.headers.authorization ?? null, body }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function answer(response: Awaited<ReturnType<typeof undici.request>>) {
  return { status: response.statusCode, body: await response.body.json() };
}

describe.each([
  ['undici', undici],
  ['undici-lean', lean],
])('%s', (_name, api) => {
  it('sends a request through the global dispatcher', async () => {
    const response = await api.request(`${origin}/session/abc?x=1`, {
      method: 'DELETE',
      headers: { authorization: 'Basic dTpw' },
    });
    expect(await answer(response)).toEqual({
      status: 200,
      body: { method: 'DELETE', url: '/session/abc?x=1', auth: 'Basic dTpw', body: '' },
    });
  });

  it('sends a request through the dispatcher it is given, PUT when there is a body', async () => {
    const agent = new api.Agent({ connections: 1 });
    try {
      // undici takes a path beside the origin, though its types do not say so.
      const response = await api.request(origin, {
        path: 'status',
        body: 'hello',
        dispatcher: agent,
      } as Parameters<typeof api.request>[1]);
      expect(await answer(response)).toEqual({
        status: 200,
        body: { method: 'PUT', url: '/status', auth: null, body: 'hello' },
      });
      const direct = await agent.request({ origin, path: '/x', method: 'GET' });
      expect(await answer(direct)).toMatchObject({ body: { method: 'GET', url: '/x' } });
    } finally {
      await agent.close();
    }
  });

  it('refuses what undici refuses, with its messages', () => {
    expect(() => api.request('', {})).toThrow('invalid url');
    expect(() => api.request(origin, { agent: {} } as never)).toThrow(/unsupported opts\.agent/);
  });

  it('shares the global dispatcher with undici', () => {
    expect(api.getGlobalDispatcher()).toBe(undici.getGlobalDispatcher());
  });
});
