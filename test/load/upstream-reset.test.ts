/**
 * An upstream that resets the connection: before its answer, the client gets a W3C error and the
 * session ends; in the middle of a streamed answer, nothing more can be said on the client's
 * connection, so gridgate cuts it too (the client sees a truncated answer fail, never a shorter body
 * that looks whole), and the session stays usable.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { expectW3cError, jsonRequest, W3C_CHROME } from '../support/fake-grid';
import { eventually, type ServedFakeGrid, serveFakeGrid } from './served-fake-grid';

let grid: ServedFakeGrid | undefined;
let hub: Server | undefined;
afterEach(async () => {
  await grid?.close();
  hub?.closeAllConnections();
  await new Promise((resolve) => (hub ? hub.close(resolve) : resolve(undefined)));
  grid = undefined;
  hub = undefined;
});

/**
 * A W3C remote end (a hub pool's, so the test owns its sockets): sessions are created normally;
 * GET …/title resets before answering, GET …/source after 1 MiB of a 4 MiB answer.
 */
async function startResettingHub(seen: string[]): Promise<string> {
  hub = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      const json = { 'content-type': 'application/json; charset=utf-8' };
      if (req.method === 'POST' && req.url === '/session') {
        res.writeHead(200, json).end(JSON.stringify({ value: { sessionId: 'up-1', capabilities: {} } }));
      } else if (req.url?.endsWith('/title')) {
        req.socket.destroy();
      } else if (req.url?.endsWith('/source')) {
        res.writeHead(200, { ...json, 'content-length': String(4 * 1024 * 1024) });
        res.write(`{"value":"${'a'.repeat(1024 * 1024)}`, () => req.socket.destroy());
      } else {
        res.writeHead(200, json).end('{"value":null}');
      }
    });
  });
  await new Promise<void>((resolve) => hub?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(hub.address() as AddressInfo).port}`;
}

async function start(seen: string[]): Promise<{ served: ServedFakeGrid; id: string }> {
  const hubUrl = await startResettingHub(seen);
  const served = await serveFakeGrid({
    config: {
      browsers: { chrome: { defaultVersion: '1.0', versions: { '1.0': { pools: ['hub'] } } } },
      pools: { hub: { kind: 'hub', url: hubUrl } },
    },
  });
  grid = served;
  const created = await fetch(`${served.origin}/session`, jsonRequest('POST', W3C_CHROME));
  expect(created.status).toBe(200);
  return { served, id: ((await created.json()) as { value: { sessionId: string } }).value.sessionId };
}

describe('an upstream that resets the connection', () => {
  it('before answering: a W3C error, the session ended and the hub told so', async () => {
    const seen: string[] = [];
    const { served, id } = await start(seen);
    await expectW3cError(
      await fetch(`${served.origin}/session/${id}/title`),
      404,
      'invalid session id',
      /ended/,
    );
    await eventually(() => expect(seen).toContain('DELETE /session/up-1'));
    expect(await served.sessions.running()).toEqual([]);
    expect(await served.sessions.inUse()).toEqual({});
  });

  it('mid-answer: the client connection is cut too, and the session goes on', async () => {
    const seen: string[] = [];
    const { served, id } = await start(seen);
    const response = await request(`${served.origin}/session/${id}/source`);
    expect(response.statusCode).toBe(200);
    await expect(response.body.text()).rejects.toThrow();
    // The reset was the connection's, not the browser's end: the next command goes through.
    const next = await fetch(`${served.origin}/session/${id}/url`);
    expect(next.status).toBe(200);
    expect(await next.json()).toEqual({ value: null });
    expect((await fetch(`${served.origin}/session/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await served.sessions.inUse()).toEqual({});
  });
});
