/** Users and Basic auth against an htpasswd file, through the whole app: ggr's guest rules and user-bound session IDs. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { HtpasswdUserDirectory } from '../../functions/adapters/htpasswd/htpasswd-user-directory';
import { attachWebSocketProxy } from '../../functions/servers/node/websocket-proxy';
import {
  expectW3cError,
  type FakeGrid,
  jsonRequest,
  type NewSessionAnswer,
  startFakeGrid,
  W3C_CHROME,
} from '../support/fake-grid';
import { CollectingLogger, FixedClock } from '../support/fakes';
import { upgradeOutcome } from '../support/websocket-upgrade';

const dir = mkdtempSync(join(tmpdir(), 'gridgate-users-'));
const usersFile = join(dir, 'users.htpasswd');
writeFileSync(
  usersFile,
  `alice:${bcrypt.hashSync('alice-pw', 4)}\nbob:{SHA}${createHash('sha1').update('bob-pw').digest('base64')}\n`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHALLENGE = 'Basic realm="gridgate"';
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
const ALICE = { authorization: basic('alice:alice-pw') };
const BOB = { authorization: basic('bob:bob-pw') };

let grid: FakeGrid;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function fakeGrid(options: Parameters<typeof startFakeGrid>[0]): FakeGrid {
  grid = startFakeGrid(options);
  cleanups.push(() => grid.close());
  return grid;
}

/** The fake grid with the real htpasswd directory over the two-user file. */
function gridWithUsers(config: Record<string, unknown> = {}): FakeGrid {
  const users = HtpasswdUserDirectory.open(usersFile, {
    clock: new FixedClock(),
    logger: new CollectingLogger(),
    pollMs: 0,
  });
  cleanups.push(() => users.close());
  return fakeGrid({ config: { usersFile, ...config }, users });
}

async function newSessionAs(headers: Record<string, string>): Promise<string> {
  const response = await grid.app.request('/session', jsonRequest('POST', W3C_CHROME, headers));
  const body = (await response.json()) as NewSessionAnswer;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.value.sessionId;
}

/** The user a session ID was signed for, among the candidates. */
function ownerOf(id: string): string | undefined {
  return ['alice', 'bob', 'guest'].find((user) => grid.deps.tokens.verify(id, user).ok);
}

async function expectUnauthorized(response: Response, message: string): Promise<void> {
  expect(response.headers.get('www-authenticate')).toBe(CHALLENGE);
  await expectW3cError(response, 401, 'invalid argument', message);
  expect(grid.launcher.started).toEqual([]);
}

describe('who a request acts as, with a users file', () => {
  it('acts as the user whose Basic credentials are right', async () => {
    gridWithUsers();
    const alices = await newSessionAs(ALICE);
    const bobs = await newSessionAs(BOB);
    expect(ownerOf(alices)).toBe('alice');
    expect(ownerOf(bobs)).toBe('bob');
    expect(grid.logger.fieldsOf('SESSION_REQUESTED').map((fields) => fields.user)).toEqual(['alice', 'bob']);
  });

  it('acts as the guest when no credentials come and guests are allowed (ggr StartSessionGuest)', async () => {
    gridWithUsers({ guest: 'visitor' });
    const id = await newSessionAs({});
    expect(grid.deps.tokens.verify(id, 'visitor').ok).toBe(true);
  });

  it('answers 401 with a Basic challenge when no credentials come and guest is null', async () => {
    gridWithUsers({ guest: null });
    const response = await grid.app.request('/session', jsonRequest('POST', W3C_CHROME));
    await expectUnauthorized(response, 'authentication required');
  });

  it('uses the user, not the guest, when guests are allowed and the credentials are right', async () => {
    gridWithUsers();
    expect(ownerOf(await newSessionAs(ALICE))).toBe('alice');
  });

  it.each([
    ['a wrong password', basic('alice:bob-pw')],
    ['an unknown user', basic('mallory:alice-pw')],
    ['an empty password', basic('alice:')],
    ['no colon', basic('alice')],
    ['an empty user name', basic(':alice-pw')],
    ['no base64 at all', 'Basic'],
    ['characters outside base64', 'Basic alice:alice-pw'],
    ['bytes that are not UTF-8', `Basic ${Buffer.from([0x61, 0x3a, 0xff]).toString('base64')}`],
  ])(
    'refuses %s with 401 even though guests are allowed (ggr GuestModeAndWrongBasicAuth)',
    async (_, header) => {
      gridWithUsers();
      const response = await grid.app.request(
        '/session',
        jsonRequest('POST', W3C_CHROME, { authorization: header }),
      );
      await expectUnauthorized(response, 'wrong user name or password');
    },
  );

  it('takes the scheme name in any case, as RFC 7617 allows', async () => {
    gridWithUsers({ guest: null });
    const header = `bAsIc ${Buffer.from('bob:bob-pw').toString('base64')}`;
    expect(ownerOf(await newSessionAs({ authorization: header }))).toBe('bob');
  });

  it('treats another auth scheme as no credentials, as ggr does: the guest when allowed', async () => {
    gridWithUsers();
    expect(ownerOf(await newSessionAs({ authorization: 'Bearer abc.def' }))).toBe('guest');
  });

  it('treats another auth scheme as no credentials, as ggr does: 401 when guest is null', async () => {
    gridWithUsers({ guest: null });
    const response = await grid.app.request(
      '/session',
      jsonRequest('POST', W3C_CHROME, { authorization: 'Bearer abc.def' }),
    );
    await expectUnauthorized(response, 'authentication required');
  });

  it('checks credentials on commands, DELETE, /host and under /wd/hub too', async () => {
    gridWithUsers({ guest: null });
    const id = await newSessionAs(ALICE);
    const upstream = grid.launcher.upstream();
    const wrong = { authorization: basic('alice:nope') };
    for (const [path, method] of [
      [`/session/${id}/url`, 'GET'],
      [`/wd/hub/session/${id}/url`, 'GET'],
      [`/session/${id}`, 'DELETE'],
      [`/host/${id}`, 'GET'],
      ['/wd/hub/session', 'POST'],
    ] as const) {
      const response = await grid.app.request(path, { method, headers: wrong });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(CHALLENGE);
    }
    expect(upstream.commands()).toEqual([]);
    expect(grid.launcher.stops).toEqual([]);
  });

  it('does not pass the grid credentials on to the browser', async () => {
    gridWithUsers();
    const id = await newSessionAs(ALICE);
    expect((await grid.app.request(`/session/${id}/url`, { headers: ALICE })).status).toBe(200);
    const upstream = grid.launcher.upstream();
    expect(upstream.requests.map((request) => request.headers.authorization)).toEqual([undefined, undefined]);
  });

  it('answers /status and /ping without credentials even when guest access is off', async () => {
    gridWithUsers({ guest: null });
    for (const path of ['/status', '/ping', '/wd/hub/status', '/wd/hub/ping']) {
      expect((await grid.app.request(path)).status, path).toBe(200);
    }
  });
});

describe('session IDs bound to their user', () => {
  it('gives another user, or the guest, invalid session id for alice’s session without touching her browser', async () => {
    gridWithUsers();
    const id = await newSessionAs(ALICE);
    const upstream = grid.launcher.upstream();
    const dispatched = grid.agent.dispatched.length;
    for (const headers of [BOB, {}]) {
      for (const [path, method] of [
        [`/session/${id}/url`, 'GET'],
        [`/session/${id}/url`, 'POST'],
        [`/wd/hub/session/${id}/title`, 'GET'],
        [`/session/${id}`, 'DELETE'],
        [`/host/${id}`, 'GET'],
      ] as const) {
        const json: Record<string, string> =
          method === 'POST' ? { 'content-type': 'application/json; charset=utf-8' } : {};
        const response = await grid.app.request(path, { method, headers: { ...headers, ...json } });
        await expectW3cError(response, 404, 'invalid session id', /not valid for this user/);
      }
    }
    expect(grid.agent.dispatched.length, 'requests gridgate tried to send').toBe(dispatched);
    expect(upstream.commands()).toEqual([]);
    expect(grid.launcher.stops).toEqual([]);
    expect(grid.logger.fieldsOf('SESSION_ID_REJECTED').map((fields) => fields.user)).toEqual([
      ...Array(5).fill('bob'),
      ...Array(5).fill('guest'),
    ]);

    // Alice herself still has her session, can see where it runs, and ends it.
    expect((await grid.app.request(`/session/${id}/url`, { headers: ALICE })).status).toBe(200);
    const host = await grid.app.request(`/host/${id}`, { headers: ALICE });
    expect(host.status).toBe(200);
    expect(((await host.json()) as { value: { address: string } }).value.address).toBe(upstream.address);
    expect((await grid.app.request(`/session/${id}`, { method: 'DELETE', headers: ALICE })).status).toBe(200);
    expect(grid.launcher.stops).toHaveLength(1);
  });

  it('gives alice invalid session id for bob’s and the guest’s sessions', async () => {
    gridWithUsers();
    const bobs = await newSessionAs(BOB);
    const guests = await newSessionAs({});
    for (const id of [bobs, guests]) {
      await expectW3cError(
        await grid.app.request(`/session/${id}/url`, { headers: ALICE }),
        404,
        'invalid session id',
      );
    }
    expect((await grid.app.request(`/session/${bobs}/url`, { headers: BOB })).status).toBe(200);
    expect((await grid.app.request(`/session/${guests}/url`)).status).toBe(200);
  });
});

describe('without a users file', () => {
  it('ignores Basic credentials: everyone is the guest, as before users existed', async () => {
    fakeGrid({});
    const id = await newSessionAs(ALICE);
    expect(ownerOf(id)).toBe('guest');
    expect((await grid.app.request(`/session/${id}/url`, { headers: BOB })).status).toBe(200);
  });

  it('refuses to build an app whose usersFile nobody checks', () => {
    expect(() => startFakeGrid({ config: { usersFile } })).toThrow(/no user directory/);
  });
});

describe('WebSocket upgrades', () => {
  /** The Node server's upgrade path (BiDi, CDP) on a loopback port, in front of the fake grid. */
  async function listen(): Promise<number> {
    const server = createServer();
    attachWebSocketProxy(server, grid.deps);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    });
    return (server.address() as AddressInfo).port;
  }

  /** Resolves with the HTTP answer to a WebSocket upgrade the grid refuses. */
  async function refusedUpgrade(url: string, headers: Record<string, string>) {
    const outcome = await upgradeOutcome(new WebSocket(url, { headers }));
    if ('socket' in outcome) {
      outcome.socket.terminate();
      throw new Error('the upgrade was accepted');
    }
    return { status: outcome.status, challenge: outcome.headers['www-authenticate'], body: outcome.body };
  }

  it('asks for credentials, refuses wrong ones, and refuses another user’s session', async () => {
    gridWithUsers({ guest: null });
    const id = await newSessionAs(ALICE);
    const url = `ws://127.0.0.1:${await listen()}/session/${id}/se/bidi`;
    const upgrade = (headers: Record<string, string>) => refusedUpgrade(url, headers);
    const anonymous = await upgrade({});
    expect(anonymous).toMatchObject({ status: 401, challenge: CHALLENGE });
    expect(JSON.parse(anonymous.body).value.message).toBe('authentication required');
    expect(await upgrade({ authorization: basic('alice:nope') })).toMatchObject({
      status: 401,
      challenge: CHALLENGE,
    });
    const bob = await upgrade(BOB);
    expect(bob.status).toBe(404);
    expect(JSON.parse(bob.body).value.error).toBe('invalid session id');
    expect(grid.launcher.upstream().requests.filter((r) => r.path.includes('/se/bidi'))).toEqual([]);
  });
});
