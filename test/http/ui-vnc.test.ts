/**
 * The status page's live VNC view: a session's noVNC page, files and WebSocket, proxied to its browser's
 * noVNC port after the session page's checks, on a real Node server, in front of a fake noVNC server on
 * 127.0.0.1 (an HTTP page and a websockify echo).
 */
import type { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SessionDetail } from '../../functions/http/ui/ui-views';
import { expectW3cError } from '../support/fake-grid';
import {
  type Cleanups,
  session,
  fakeNoVnc as startNoVnc,
  vncGrid as startVncGrid,
} from '../support/fake-novnc';
import { ALICE, BOB, ROOT, WRONG_PASSWORD } from '../support/page-users';
import { upgradeOutcome } from '../support/websocket-upgrade';

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const fakeNoVnc = () => startNoVnc(cleanups);
const vncGrid = (port: number, webSockets = true) => startVncGrid(cleanups, port, { webSockets });

const vncPath = (key: string, file: string) => `/ui/api/sessions/${key}/vnc/${file}`;

async function detail(
  app: Hono<{ Variables: { user: string } }>,
  key: string,
  headers: Record<string, string>,
) {
  const response = await app.request(`/ui/api/sessions/${key}`, { headers });
  expect(response.status).toBe(200);
  return ((await response.json()) as { session: SessionDetail }).session;
}

/** Opens the VNC WebSocket; resolves with the socket once open, or the refusal's status and W3C error. */
async function openVnc(port: number, key: string, headers: Record<string, string>) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}${vncPath(key, 'websockify')}`, ['binary'], {
    headers: { origin: `http://127.0.0.1:${port}`, ...headers },
  });
  cleanups.push(() => socket.terminate());
  const outcome = await upgradeOutcome(socket);
  return 'socket' in outcome
    ? outcome
    : { status: outcome.status, error: JSON.parse(outcome.body).value.error as string };
}

describe('the session page’s live view', () => {
  it('offers the VNC view of an ecs session with noVNC to its owner and the admin, with its password', async () => {
    const vnc = await fakeNoVnc();
    const { app, grid } = await vncGrid(vnc.port);
    const key = await session(grid);
    expect((await detail(app, key, ALICE)).vnc).toEqual({ password: 'secret' });
    expect((await detail(app, key, ROOT)).vnc).toEqual({ password: 'secret' });
    const page = await app.request('/ui?session=x', { headers: ALICE });
    expect(page.headers.get('content-security-policy')).toContain("frame-src 'self'");
    expect(await page.text()).toContain('id="vnc"');
  });

  it('shows screenshots instead where the pool has no VNC, or the server cannot carry WebSockets', async () => {
    const vnc = await fakeNoVnc();
    const nodeServer = await vncGrid(vnc.port);
    const quiet = await session(nodeServer.grid, { pool: 'quiet' });
    expect(await detail(nodeServer.app, quiet, ALICE)).not.toHaveProperty('vnc');
    const local = await session(nodeServer.grid, { key: 'bbbbbbbbbbbbbbbb', pool: 'local' });
    expect(await detail(nodeServer.app, local, ALICE)).not.toHaveProperty('vnc');

    const lambda = await vncGrid(vnc.port, false);
    const key = await session(lambda.grid);
    expect(await detail(lambda.app, key, ALICE)).not.toHaveProperty('vnc');
    await expectW3cError(
      await lambda.app.request(vncPath(key, 'vnc.html'), { headers: ALICE }),
      404,
      'unknown command',
      /cannot carry WebSockets/,
    );
    expect(vnc.requests).toEqual([]);
  });
});

describe('GET /ui/api/sessions/{key}/vnc/…', () => {
  it('serves the browser’s noVNC page and files to the owner, without the browser’s cookies', async () => {
    const vnc = await fakeNoVnc();
    const { app, grid } = await vncGrid(vnc.port);
    const key = await session(grid);

    const page = await app.request(vncPath(key, 'vnc.html?autoconnect=1'), { headers: ALICE });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<title>noVNC</title>');
    expect(page.headers.get('content-type')).toBe('text/html');
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(page.headers.get('content-security-policy')).toBe("frame-ancestors 'self'");
    const script = await app.request(vncPath(key, 'app/ui.js'), { headers: ROOT });
    expect(await script.text()).toBe('export default {};');
    expect(vnc.requests).toEqual(['/vnc.html?autoconnect=1', '/app/ui.js']);
    // A page that stops loading a file at once (navigating away) leaves nothing thrown behind.
    await (await app.request(vncPath(key, 'app/ui.js'), { headers: ALICE })).body?.cancel();
  });

  it('refuses other users, unknown keys and paths out of noVNC’s files, contacting nothing', async () => {
    const vnc = await fakeNoVnc();
    const { app, grid } = await vncGrid(vnc.port);
    const key = await session(grid);
    await expectW3cError(
      await app.request(vncPath(key, 'vnc.html'), { headers: BOB }),
      404,
      'invalid session id',
    );
    await expectW3cError(
      await app.request(vncPath('0123456789abcdef', 'vnc.html'), { headers: ROOT }),
      404,
      'invalid session id',
    );
    for (const file of ['..%2f..%2fstatus', '.hidden', 'app//ui.js', '']) {
      await expectW3cError(
        await app.request(vncPath(key, file), { headers: ALICE }),
        400,
        'invalid argument',
      );
    }
    expect(vnc.requests).toEqual([]);
  });

  it('never contacts an address outside the pool’s networks, nor a session that ended', async () => {
    const vnc = await fakeNoVnc();
    const { app, grid } = await vncGrid(vnc.port);
    // A record naming an address its pool does not allow (as a forged session ID would): no view at all.
    const outside = await session(grid, { address: '10.1.2.3:4444' });
    await expectW3cError(
      await app.request(vncPath(outside, 'vnc.html'), { headers: ALICE }),
      404,
      'unknown command',
    );
    const ended = await session(grid, { key: 'cccccccccccccccc' });
    await grid.sessions.end(ended, 'deleted', grid.clock.now());
    await expectW3cError(
      await app.request(vncPath(ended, 'vnc.html'), { headers: ALICE }),
      404,
      'invalid session id',
    );
    expect(grid.agent.dispatched).toEqual([]);
    expect(vnc.requests).toEqual([]);
  });
});

describe('the VNC WebSocket', () => {
  it('relays both ways for the owner, with noVNC’s subprotocol, without counting as the session’s activity', async () => {
    const vnc = await fakeNoVnc();
    const { grid, port } = await vncGrid(vnc.port);
    const key = await session(grid);
    const before = (await grid.sessions.get(key))?.lastActivityAt;
    grid.clock.advance(60_000);

    const opened = await openVnc(port, key, ALICE);
    if (!('socket' in opened)) throw new Error(`refused: ${JSON.stringify(opened)}`);
    expect(opened.socket.protocol).toBe('binary');
    const echo = new Promise<Buffer>((resolve) =>
      opened.socket.once('message', (data) => resolve(data as Buffer)),
    );
    opened.socket.send(Buffer.from('RFB 003.008\n'));
    expect((await echo).toString()).toBe('RFB 003.008\n');
    // Gridgate's client credentials never reach the browser's machine.
    expect(vnc.upgrades[0]?.authorization).toBeUndefined();
    expect((await grid.sessions.get(key))?.lastActivityAt).toBe(before);

    const admin = await openVnc(port, key, ROOT);
    expect('socket' in admin).toBe(true);
  });

  it('refuses other users, other sites’ pages, and sessions without a VNC view', async () => {
    const vnc = await fakeNoVnc();
    const { grid, port } = await vncGrid(vnc.port);
    const key = await session(grid);
    const quiet = await session(grid, { key: 'dddddddddddddddd', pool: 'quiet' });
    expect(await openVnc(port, key, BOB)).toEqual({ status: 404, error: 'invalid session id' });
    expect(await openVnc(port, key, { ...ALICE, origin: 'https://evil.example' })).toEqual({
      status: 403,
      error: 'invalid argument',
    });
    expect(await openVnc(port, key, WRONG_PASSWORD)).toMatchObject({ status: 401 });
    expect(await openVnc(port, quiet, ALICE)).toEqual({ status: 404, error: 'unknown command' });
    expect(vnc.upgrades).toEqual([]);
  });
});
