/** DESIGN invariant 2: a session ID that is not this user's, exactly as signed, never reaches the network. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SessionClaims, SessionTokens } from '../../functions/core/session-token';
import { expireSessions } from '../../functions/use-cases/expire-sessions';
import { expectW3cError, type FakeGrid, jsonRequest, newSession, startFakeGrid } from '../support/fake-grid';
import type { FakeUpstream } from '../support/fakes';

let grid: FakeGrid;
let id: string;
let claims: SessionClaims;
let upstream: FakeUpstream;

beforeEach(async () => {
  grid = startFakeGrid();
  id = await newSession(grid);
  upstream = grid.launcher.upstream();
  const check = grid.deps.tokens.verify(id, 'guest');
  if (!check.ok) throw new Error('the grid’s own session ID does not verify');
  claims = check.claims;
});
afterEach(() => grid.close());

/** Every way a client can use a session ID. */
const USES: [string, (id: string) => [string, RequestInit]][] = [
  ['GET a command', (id) => [`/session/${id}/url`, { method: 'GET' }]],
  ['POST a command', (id) => [`/session/${id}/url`, jsonRequest('POST', { url: 'http://127.0.0.1/' })]],
  ['GET the session', (id) => [`/session/${id}`, { method: 'GET' }]],
  ['DELETE the session', (id) => [`/session/${id}`, { method: 'DELETE' }]],
  ['a command under /wd/hub', (id) => [`/wd/hub/session/${id}/title`, { method: 'GET' }]],
  ['DELETE under /wd/hub', (id) => [`/wd/hub/session/${id}`, { method: 'DELETE' }]],
  ['GET /host', (id) => [`/host/${id}`, { method: 'GET' }]],
];

/** Sends the ID every way and checks each is refused with 404 invalid session id and nothing left the grid. */
async function expectRefusedOffline(badId: string, message?: RegExp): Promise<void> {
  const upstreamRequests = upstream.requests.length;
  const dispatched = grid.agent.dispatched.length;
  for (const [use, build] of USES) {
    const [path, init] = build(badId);
    const response = await grid.app.request(path, init);
    const text = await expectW3cError(response.clone(), 404, 'invalid session id', message).catch((error) => {
      throw new Error(`${use}: ${(error as Error).message}`);
    });
    expect(text, use).toBeTruthy();
  }
  expect(upstream.requests.length, 'requests the browser received').toBe(upstreamRequests);
  expect(grid.agent.dispatched.slice(dispatched), 'requests gridgate tried to send').toEqual([]);
  expect(grid.launcher.stops).toEqual([]);
  expect(await grid.sessions.inUse()).toEqual({ local: 1 });
}

function alter(token: string, index: number): string {
  const replacement = token[index] === 'A' ? 'B' : 'A';
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

describe('session IDs that are not valid for the caller', () => {
  it('rejects a forged session ID without contacting any browser', async () => {
    await expectRefusedOffline('c0ffee00c0ffee00c0ffee00c0ffee00', /not valid for this user/);
  });

  it('rejects the browser’s own session ID', async () => {
    await expectRefusedOffline(claims.upstreamId);
  });

  it('rejects a truncated session ID', async () => {
    await expectRefusedOffline(id.slice(0, -1));
    await expectRefusedOffline(id.slice(0, 40));
  });

  it('rejects a session ID with one character changed, wherever it is', async () => {
    for (const index of [0, 5, 20, Math.floor(id.length / 2), id.length - 17, id.length - 1]) {
      await expectRefusedOffline(alter(id, index));
    }
  });

  it('rejects a session ID with characters added', async () => {
    await expectRefusedOffline(`${id}A`);
    await expectRefusedOffline(`${id}AAAA`);
  });

  it('rejects a session ID signed for another user', async () => {
    await expectRefusedOffline(grid.deps.tokens.sign(claims, 'alice'), /not valid for this user/);
  });

  it('rejects a session ID signed with another grid’s secret', async () => {
    const otherGrid = new SessionTokens(Buffer.from('another-grid-secret-of-32-bytes!!'));
    await expectRefusedOffline(otherGrid.sign(claims, 'guest'));
  });

  it('rejects a correctly signed ID whose address is outside the pool’s browser network (no SSRF)', async () => {
    for (const address of [
      '169.254.169.254:80',
      '10.0.0.5:4444',
      'metadata.internal:80',
      '127.0.0.1.evil.test:80',
    ]) {
      await expectRefusedOffline(
        grid.deps.tokens.sign({ ...claims, address }, 'guest'),
        /is not served here/,
      );
    }
  });

  it('rejects a correctly signed ID for a pool this grid does not have', async () => {
    await expectRefusedOffline(
      grid.deps.tokens.sign({ ...claims, pool: 'elsewhere' }, 'guest'),
      /"elsewhere"/,
    );
  });

  it('rejects oversized and garbage IDs without contacting any browser', async () => {
    await expectRefusedOffline('A'.repeat(5000));
    await expectRefusedOffline('%2e%2e%2fadmin');
    await expectRefusedOffline(encodeURIComponent('bad id with spaces'));
  });

  it('logs each rejection without the whole ID', async () => {
    const foreign = grid.deps.tokens.sign(claims, 'alice');
    await grid.app.request(`/session/${foreign}/url`);
    const [logged] = grid.logger.fieldsOf('SESSION_ID_REJECTED');
    expect(logged).toEqual({ user: 'guest', reason: 'signature', id: foreign.slice(0, 24) });
  });

  it('still serves the real session afterwards', async () => {
    await expectRefusedOffline(alter(id, 10));
    expect((await grid.app.request(`/session/${id}/url`)).status).toBe(200);
    expect(upstream.commands()).toHaveLength(1);
  });
});

describe('session IDs past their maximum age', () => {
  it('accepts an ID until its maximum age', async () => {
    grid.clock.advance(3_599_000);
    expect((await grid.app.request(`/session/${id}/url`)).status).toBe(200);
  });

  it('rejects an ID older than its maximum age without contacting the browser', async () => {
    grid.clock.advance(3_600_001);
    await expectRefusedOffline(id, /maximum age of 1h/);
  });

  it('rejects an ID older than the shorter maximum age the client asked for', async () => {
    const short = await newSession(grid, {
      capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': { maxAge: '2m' } } },
    });
    const shortUpstream = grid.launcher.upstream();
    grid.clock.advance(2 * 60_000 + 1000);
    await expectW3cError(
      await grid.app.request(`/session/${short}/url`),
      404,
      'invalid session id',
      /maximum age of 2m/,
    );
    expect(shortUpstream.commands()).toEqual([]);
    // The other session, with the grid's 1h, is still served.
    expect((await grid.app.request(`/session/${id}/url`)).status).toBe(200);
  });
});

describe('sessions ended by the grid', () => {
  it('answers a command on an idle-expired session with 404 saying why', async () => {
    grid.clock.advance(5 * 60_000);
    expect(await expireSessions(grid.deps)).toBe(1);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    await expectW3cError(
      await grid.app.request(`/session/${id}/url`),
      404,
      'invalid session id',
      /no command for 5m \(idle timeout\)/,
    );
  });
});
