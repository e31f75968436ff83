/**
 * An ecs session's log on Selenoid's path, through the whole app: `GET /logs/{id}.log` answers the owner
 * (and an admin) with the browser container's CloudWatch log stream, read from the fake GetLogEvents by a
 * real client; anyone else gets the same 404 as an unknown ID, a session that never logged a W3C 404, and
 * a throttled service, or a router whose share of GetLogEvents calls is taken, a W3C 503.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionPool } from '../../functions/core/grid-deps';
import type { UserDirectory } from '../../functions/core/ports';
import { CloudWatchBrowserLogs, LOG_READ_TRIES } from '../../functions/pools/ecs/cloudwatch-browser-logs';
import { artifactsByKind } from '../../functions/pools/selenium-node/artifacts-by-kind';
import { FakeCloudWatchLogs } from '../support/fake-cloudwatch-logs';
import { expectW3cError, type FakeGrid, startFakeGrid } from '../support/fake-grid';

const GROUP = 'GridgateStack-BrowsersLogs1A2B3C-xyz';
const TASK = '0123456789abcdef0123456789abcdef';
const users: UserDirectory = { verify: async (user, password) => password === `${user}-pw` };
const as = (user: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${user}-pw`).toString('base64')}`,
});

let grid: FakeGrid;
let logs: FakeCloudWatchLogs;

beforeEach(async () => {
  grid = startFakeGrid({
    config: {
      usersFile: 'users.htpasswd',
      admins: ['root'],
      guest: null,
      browsers: { chrome: { versions: { stable: { pools: ['fargate'] } } } },
      pools: { fargate: { kind: 'ecs', networks: ['10.0.0.0/16'] } },
    },
    users,
  });
  logs = await FakeCloudWatchLogs.start({ pageSize: 2 });
  logs.createLogGroup(GROUP);
  grid.deps.artifacts = {
    ecs: artifactsByKind({
      log: new CloudWatchBrowserLogs({
        logs: logs.client(),
        group: GROUP,
        poolOf: (session) => sessionPool(grid.deps, session),
        sleep: async () => {},
      }),
    }),
  };
});
afterEach(async () => {
  await grid.close();
  await logs.close();
});

/** An ecs session's ID for `user`, and its record in the store (as the router keeps one) unless `gone`. */
async function ecsSession(user: string, handle = TASK, gone = false): Promise<string> {
  const claims = {
    key: `key-${user}`,
    pool: 'fargate',
    address: '10.0.1.5:4444',
    upstreamId: 'd1e2f3',
    handle,
    devtools: '',
    createdAt: grid.clock.now(),
    maxAgeMs: 3_600_000,
  };
  if (gone) return grid.deps.tokens.sign(claims, user);
  await grid.sessions.add({
    ...claims,
    user,
    browserName: 'chrome',
    browserVersion: 'stable',
    lastActivityAt: claims.createdAt,
    idleTimeoutMs: 60_000,
    endedAt: claims.createdAt + 1000,
    endReason: 'deleted',
  });
  return grid.deps.tokens.sign(claims, user);
}

describe('an ecs session’s log from CloudWatch Logs', () => {
  it('is served to its owner and an admin, line by line, every page', async () => {
    const id = await ecsSession('alice');
    logs.log(GROUP, `fargate/browser/${TASK}`, ['Started Selenium', 'Session created', 'Session deleted'], 1);
    for (const user of ['alice', 'root']) {
      const answer = await grid.app.request(`/logs/${id}.log`, { headers: as(user) });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(answer.headers.get('cache-control')).toBe('private, no-cache');
      expect(await answer.text()).toBe('Started Selenium\nSession created\nSession deleted\n');
    }
    expect((await grid.app.request(`/logs/${id}`, { headers: as('alice') })).status).toBe(200);
  });

  it('is found from the session ID alone for its owner once the record is gone, and then for no admin', async () => {
    // The ID carries the pool and the task: the stream's name. Whose it is only the record says (the ID's
    // MAC binds its owner without naming them), so an admin asking for someone else's needs the record.
    const id = await ecsSession('alice', TASK, true);
    logs.log(GROUP, `fargate/browser/${TASK}`, ['Started Selenium'], 1);
    const owner = await grid.app.request(`/logs/${id}.log`, { headers: as('alice') });
    expect(await owner.text()).toBe('Started Selenium\n');
    const admin = await grid.app.request(`/logs/${id}.log`, { headers: as('root') });
    const unknown = await grid.app.request('/logs/not-a-session.log', { headers: as('root') });
    const message = await expectW3cError(admin, 404, 'invalid session id');
    expect(await expectW3cError(unknown, 404, 'invalid session id')).toBe(message);
    expect(logs.calls).toHaveLength(2);
  });

  it('is the same 404 for anyone else as for an ID that is no session, and nothing is read', async () => {
    const id = await ecsSession('alice');
    logs.log(GROUP, `fargate/browser/${TASK}`, ['secret'], 1);
    const other = await grid.app.request(`/logs/${id}.log`, { headers: as('bob') });
    const unknown = await grid.app.request('/logs/not-a-session.log', { headers: as('bob') });
    const message = await expectW3cError(other, 404, 'invalid session id');
    expect(await expectW3cError(unknown, 404, 'invalid session id')).toBe(message);
    expect(logs.calls).toEqual([]);
  });

  it('is a W3C 404 for a session whose task never logged', async () => {
    const id = await ecsSession('alice', 'ffffffffffffffffffffffffffffffff');
    const answer = await grid.app.request(`/logs/${id}.log`, { headers: as('alice') });
    await expectW3cError(answer, 404, 'invalid session id', /no log of this session/);
  });

  it('is a W3C 503 while CloudWatch Logs throttles every try', async () => {
    const id = await ecsSession('alice');
    logs.log(GROUP, `fargate/browser/${TASK}`, ['line'], 1);
    logs.throttle(LOG_READ_TRIES);
    const answer = await grid.app.request(`/logs/${id}.log`, { headers: as('alice') });
    expect(answer.headers.get('retry-after')).toBe('5');
    await expectW3cError(answer, 503, 'unknown error', /CloudWatch Logs is throttling/);
  });

  it('is a W3C 503 with Retry-After, asking nothing, once this router’s share of GetLogEvents is taken', async () => {
    // One call a second, nobody waits: the log's first call takes this second's turn, the second is refused.
    grid.deps.artifacts = {
      ecs: artifactsByKind({
        log: new CloudWatchBrowserLogs({
          logs: logs.client(),
          group: GROUP,
          poolOf: (session) => sessionPool(grid.deps, session),
          clock: { now: () => 1_000_000 },
          pacing: { perSecond: 1, maxWaitMs: 0 },
        }),
      }),
    };
    const id = await ecsSession('alice');
    logs.log(GROUP, `fargate/browser/${TASK}`, ['line'], 1);
    const answer = await grid.app.request(`/logs/${id}.log`, { headers: as('alice') });
    expect(answer.headers.get('retry-after')).toBe('1');
    await expectW3cError(answer, 503, 'unknown error', /at most 1 times a second/);
    expect(logs.calls).toHaveLength(1);
  });

  it('has no video where the pool keeps none', async () => {
    const id = await ecsSession('alice');
    const answer = await grid.app.request(`/video/${id}.mp4`, { headers: as('alice') });
    await expectW3cError(answer, 404, 'invalid session id', /no video of this session/);
  });
});
