/**
 * Hub pools in front of Selenoid: its own paths (video, logs, downloads, clipboard, DevTools, VNC) served
 * from the hub as ggr serves them, under gridgate's signed session IDs; and X-Selenoid-No-Wait, so a full
 * Selenoid refuses at once while another hub is left to try.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SessionClaims } from '../../functions/core/session-token';
import { createApp } from '../../functions/http/create-app';
import { attachWebSocketProxy } from '../../functions/servers/node/websocket-proxy';
import { expectW3cError, type FakeGrid, newSession, startFakeGrid } from '../support/fake-grid';
import { FakeSelenoid } from '../support/fake-selenoid';
import { eventually } from '../support/until';
import { upgradeOutcome } from '../support/websocket-upgrade';

const CLIENT_AUTH = `Basic ${Buffer.from('client:client-secret').toString('base64')}`;
const HUB_AUTH = `Basic ${Buffer.from('hubuser:hub-pass').toString('base64')}`;

let grid: FakeGrid | undefined;
let server: Server | undefined;
const hubs: FakeSelenoid[] = [];
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  await grid?.close();
  grid = undefined;
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

async function startSelenoid(limit = 1): Promise<FakeSelenoid> {
  const hub = await FakeSelenoid.start(limit);
  hubs.push(hub);
  return hub;
}

const selenoidPool = (hub: FakeSelenoid, extra: Record<string, unknown> = {}) => ({
  kind: 'hub',
  url: `http://${hub.address}/wd/hub`,
  username: 'hubuser',
  password: 'hub-pass',
  ...extra,
});

function startGrid(pools: Record<string, unknown>): FakeGrid {
  grid = startFakeGrid({
    config: { browsers: { chrome: { versions: { '156.0': { pools: Object.keys(pools) } } } }, pools },
  });
  return grid;
}

/** The Selenoid session ID behind a gridgate session ID. */
function upstreamOf(id: string): string {
  const check = grid?.deps.tokens.verify(id, 'guest');
  if (!check?.ok) throw new Error('not a session of this grid');
  return check.claims.upstreamId;
}

const get = (path: string, init: RequestInit = {}) => (grid as FakeGrid).app.request(path, init);

describe('Selenoid paths of a hub session', () => {
  it('serves the video and log at Selenoid’s and ggr’s paths from the hub, with the hub’s credentials', async () => {
    const hub = await startSelenoid();
    startGrid({ selenoid: selenoidPool(hub) });
    const id = await newSession(grid as FakeGrid);
    const upstream = upstreamOf(id);
    for (const path of [`/video/${id}.mp4`, `/video/${id}`]) {
      const video = await get(path, { headers: { authorization: CLIENT_AUTH } });
      expect(video.status).toBe(200);
      expect(video.headers.get('content-type')).toBe('video/mp4');
      expect(await video.text()).toBe(`video of ${upstream}`);
    }
    const log = await get(`/logs/${id}.log`);
    expect(await log.text()).toBe(`log of ${upstream}\n`);
    const asked = hub.requests.filter((r) => /^\/(video|logs)\//.test(r.path));
    expect(asked.map((r) => r.path)).toEqual([
      `/video/${upstream}.mp4`,
      `/video/${upstream}.mp4`,
      `/logs/${upstream}.log`,
    ]);
    expect(asked.every((r) => r.headers.authorization === HUB_AUTH)).toBe(true);
  });

  it('keeps serving them after the session ended, past its maximum age too, and says when the hub has none', async () => {
    const hub = await startSelenoid();
    startGrid({ selenoid: selenoidPool(hub) });
    const id = await newSession(grid as FakeGrid);
    expect((await get(`/session/${id}`, { method: 'DELETE' })).status).toBe(200);
    (grid as FakeGrid).clock.advance((grid as FakeGrid).deps.config.timeouts.maxAge + 1000);
    expect((await get(`/video/${id}.mp4`)).status).toBe(200);
    // Removed at the hub (Selenoid's DELETE /video/{id}.mp4): Selenoid's 404 becomes gridgate's.
    await fetch(`http://${hub.address}/video/${upstreamOf(id)}.mp4`, { method: 'DELETE' });
    await expectW3cError(
      await get(`/video/${id}.mp4`),
      404,
      'invalid session id',
      /no video of this session/,
    );
  });

  it('passes a byte range to the hub and its 206 or 416 back, so a video element can seek', async () => {
    const hub = await startSelenoid();
    startGrid({ selenoid: selenoidPool(hub) });
    const id = await newSession(grid as FakeGrid);
    const whole = `video of ${upstreamOf(id)}`;
    const part = await get(`/video/${id}.mp4`, { headers: { range: 'bytes=6-7' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 6-7/${whole.length}`);
    expect(part.headers.get('accept-ranges')).toBe('bytes');
    expect(await part.text()).toBe('of');
    const tail = await get(`/video/${id}`, { headers: { range: 'bytes=-4' } });
    expect(await tail.text()).toBe(whole.slice(-4));
    const outside = await get(`/video/${id}.mp4`, { headers: { range: 'bytes=9999-' } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${whole.length}`);
    // A video element that seeks stops reading at once; that must not throw anywhere (Readable.toWeb did).
    await outside.body?.cancel();
    const head = await get(`/video/${id}.mp4`, { method: 'HEAD', headers: { range: 'bytes=0-3' } });
    expect([head.status, head.headers.get('content-length')]).toEqual([206, '4']);
    expect(
      hub.requests.filter((r) => r.path.startsWith('/video/')).map((r) => [r.method, r.headers.range]),
    ).toEqual([
      ['GET', 'bytes=6-7'],
      ['GET', 'bytes=-4'],
      ['GET', 'bytes=9999-'],
      ['HEAD', 'bytes=0-3'],
    ]);
  });

  it('removes a video or log at the hub on DELETE, as ggr passes it on to Selenoid', async () => {
    const hub = await startSelenoid();
    startGrid({ selenoid: selenoidPool(hub) });
    const id = await newSession(grid as FakeGrid);
    const upstream = upstreamOf(id);
    const removed = await get(`/video/${id}.mp4`, {
      method: 'DELETE',
      headers: { authorization: CLIENT_AUTH },
    });
    expect(removed.status).toBe(200);
    expect(hub.sessions.get(upstream)?.video).toBeUndefined();
    expect(hub.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/video/${upstream}.mp4` });
    expect(hub.requests.at(-1)?.headers.authorization).toBe(HUB_AUTH);
    // Gone at the hub: Selenoid's 404 becomes gridgate's, for GET and DELETE alike.
    for (const method of ['GET', 'DELETE'])
      await expectW3cError(
        await get(`/video/${id}.mp4`, { method }),
        404,
        'invalid session id',
        /no video of this session/,
      );
    expect((await get(`/logs/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(hub.sessions.get(upstream)?.log).toBeUndefined();
    // Another user's or a forged ID reaches no hub.
    const asked = hub.requests.length;
    await expectW3cError(
      await get('/video/not-a-session-id.mp4', { method: 'DELETE' }),
      404,
      'invalid session id',
    );
    expect(hub.requests.length).toBe(asked);
  });

  it('passes downloads and the clipboard through, with the query and the body', async () => {
    const hub = await startSelenoid();
    startGrid({ selenoid: selenoidPool(hub) });
    const id = await newSession(grid as FakeGrid);
    const upstream = upstreamOf(id);
    const file = await get(`/download/${id}/report.txt?inline=1`);
    expect(await file.text()).toBe(`report of ${upstream}`);
    // A client that stops reading a download at once leaves nothing thrown behind.
    await (await get(`/download/${id}/report.txt`)).body?.cancel();
    const set = await get(`/clipboard/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'copied text',
    });
    expect(set.status).toBe(200);
    expect(await (await get(`/clipboard/${id}`)).text()).toBe('copied text');
    expect(hub.requests.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        `GET /download/${upstream}/report.txt?inline=1`,
        `POST /clipboard/${upstream}`,
        `GET /clipboard/${upstream}`,
      ]),
    );
  });

  it.each([
    ['a forged ID', '/video/not-a-session-id.mp4', 404, 'invalid session id'],
    ['a forged ID for a download', '/download/not-a-session-id/report.txt', 404, 'invalid session id'],
    ['no ID', '/video/', 404, 'unknown command'],
    ['the wrong extension', '/video/ID.log', 404, 'invalid session id'],
    ['a clipboard with a file name', '/clipboard/ID/x', 404, 'unknown command'],
    ['a download without a file name', '/download/ID', 404, 'unknown command'],
    ['a download into another directory', '/download/ID/a%2Fb', 404, 'unknown command'],
    ['a download of a dot-dot name', '/download/ID/%2e%2e%2f', 404, 'unknown command'],
    ['a download reaching another hub path', '/download/ID/..%5Cwd', 404, 'unknown command'],
    ['devtools with a control character', '/devtools/ID/page%00', 404, 'unknown command'],
  ])('refuses %s without asking any hub', async (_, path, status, error) => {
    const hub = await startSelenoid();
    startGrid({ selenoid: selenoidPool(hub) });
    const id = await newSession(grid as FakeGrid);
    const before = (grid as FakeGrid).agent.dispatched.length;
    await expectW3cError(await get(path.replace('ID', id)), status, error);
    expect((grid as FakeGrid).agent.dispatched.length).toBe(before);
  });

  it('refuses another user’s session ID without asking the hub', async () => {
    const hub = await startSelenoid();
    startGrid({ selenoid: selenoidPool(hub) });
    const id = await newSession(grid as FakeGrid);
    const theirs = (grid as FakeGrid).deps.tokens.sign(
      ((grid as FakeGrid).deps.tokens.verify(id, 'guest') as { claims: SessionClaims }).claims,
      'someone-else',
    );
    const before = (grid as FakeGrid).agent.dispatched.length;
    await expectW3cError(await get(`/logs/${theirs}.log`), 404, 'invalid session id');
    expect((grid as FakeGrid).agent.dispatched.length).toBe(before);
  });

  it('says a local session has no such path rather than asking its browser', async () => {
    startGrid({ local: { kind: 'local' } });
    const id = await newSession(grid as FakeGrid);
    await expectW3cError(await get(`/clipboard/${id}`), 404, 'unknown command', /pool local/);
  });

  it('answers 502 as a W3C error when the hub cannot be reached', async () => {
    const hub = await startSelenoid();
    startGrid({ selenoid: selenoidPool(hub) });
    const id = await newSession(grid as FakeGrid);
    await hub.close();
    hubs.splice(hubs.indexOf(hub), 1);
    await expectW3cError(await get(`/video/${id}.mp4`), 502, 'unknown error', /hub could not be reached/);
  });
});

describe('Selenoid WebSockets of a hub session (Node server)', () => {
  async function listen(pools: Record<string, unknown>): Promise<string> {
    const fake = startGrid(pools);
    const app = createApp(fake.deps, { agent: fake.agent });
    server = await new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
        resolve(started as Server),
      );
    });
    attachWebSocketProxy(server, fake.deps);
    return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const firstMessage = (socket: WebSocket) =>
    new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));

  it('relays /devtools/{id}/… and /vnc/{id} to the hub’s, with its credentials and an Origin', async () => {
    const hub = await startSelenoid();
    const base = await listen({ selenoid: selenoidPool(hub) });
    const id = await newSession(grid as FakeGrid);
    const upstream = upstreamOf(id);

    const devtools = new WebSocket(`${base}/devtools/${id}/page`);
    const greeting = firstMessage(devtools);
    const opened = await upgradeOutcome(devtools);
    expect('socket' in opened).toBe(true);
    expect(await greeting).toBe('devtools-data /page');
    devtools.send('Runtime.evaluate');
    expect(await firstMessage(devtools)).toBe('echo Runtime.evaluate');
    devtools.close();

    const vnc = new WebSocket(`${base}/vnc/${id}`);
    const frame = firstMessage(vnc);
    await upgradeOutcome(vnc);
    expect(await frame).toBe('vnc-data');
    vnc.close();

    const upgrades = hub.requests.filter((r) => r.method === 'UPGRADE');
    expect(upgrades.map((r) => r.path)).toEqual([`/devtools/${upstream}/page`, `/vnc/${upstream}`]);
    expect(upgrades.every((r) => r.headers.authorization === HUB_AUTH)).toBe(true);
    expect(upgrades.every((r) => r.headers.origin === `http://${hub.address}`)).toBe(true);
  });

  it('refuses a forged ID with a W3C error before the hub hears of it', async () => {
    const hub = await startSelenoid();
    const base = await listen({ selenoid: selenoidPool(hub) });
    const outcome = await upgradeOutcome(new WebSocket(`${base}/devtools/forged-session-id`));
    expect(outcome).toMatchObject({ status: 404 });
    expect(JSON.parse((outcome as { body: string }).body).value.error).toBe('invalid session id');
    expect(hub.requests.filter((r) => r.method === 'UPGRADE')).toEqual([]);
  });
});

describe('X-Selenoid-No-Wait', () => {
  it('is sent while another hub is left, so a full Selenoid refuses at once and the next one serves', async () => {
    const full = await startSelenoid(1);
    const free = await startSelenoid(1);
    // The full one is (almost) always chosen first.
    startGrid({
      full: selenoidPool(full, { weight: 1000, region: 'a' }),
      free: selenoidPool(free, { region: 'b' }),
    });
    // Fill the full one from outside gridgate.
    await fetch(`http://${full.address}/wd/hub/session`, { method: 'POST', body: '{}' });
    expect(full.busy).toBe(1);
    const id = await newSession(grid as FakeGrid);
    expect(grid?.deps.tokens.verify(id, 'guest')).toMatchObject({ claims: { pool: 'free' } });
    const refused = full.newSessionRequests().at(-1);
    expect(refused?.headers['x-selenoid-no-wait']).toBe('');
    // The last hub left hears no such header: it may queue the request.
    expect(free.newSessionRequests()[0]?.headers).not.toHaveProperty('x-selenoid-no-wait');
  });

  it('is not sent to the only hub: a full Selenoid queues the request until a session ends', async () => {
    const only = await startSelenoid(1);
    startGrid({ only: selenoidPool(only, { maxSessions: 2 }) });
    const first = await newSession(grid as FakeGrid);
    const second = newSession(grid as FakeGrid);
    await eventually(() => expect(only.newSessionRequests().length).toBe(2));
    expect(only.newSessionRequests()[1]?.headers).not.toHaveProperty('x-selenoid-no-wait');
    await get(`/session/${first}`, { method: 'DELETE' });
    expect(upstreamOf(await second)).toMatch(/^[0-9a-f]{32}$/);
  });
});
