import { describe, expect, it, vi } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { parseConfig } from '../../functions/core/config';
import { EndedSessions } from '../../functions/core/ended-sessions';
import { invalidArgument } from '../../functions/core/errors';
import type { GridDeps } from '../../functions/core/grid-deps';
import { LaunchFailure } from '../../functions/core/host-choice';
import type { LaunchedBrowser, Launcher, LaunchRequest } from '../../functions/core/ports';
import { SessionTokens } from '../../functions/core/session-token';
import { SlotQueue } from '../../functions/core/slot-queue';
import type {
  CreatedSession,
  UpstreamNewSession,
  UpstreamWebDriver,
} from '../../functions/core/upstream-webdriver';
import { POOL_TRAITS } from '../../functions/pools';
import { createSession, type NewSessionRequest } from '../../functions/use-cases/create-session';
import { expireSessions } from '../../functions/use-cases/expire-sessions';
import { CollectingLogger, FixedClock, RecordingMetrics } from '../support/fakes';

/** Browsers that are only addresses: nothing starts, each start and stop is remembered. */
class InMemoryLauncher implements Launcher {
  readonly started: LaunchRequest[] = [];
  readonly stops: string[] = [];
  async start(request: LaunchRequest): Promise<LaunchedBrowser> {
    request.signal.throwIfAborted();
    this.started.push(request);
    const n = this.started.length;
    return { address: `127.0.0.1:${9000 + n}`, handle: `browser-${n}`, capabilities: request.capabilities };
  }
  async stop(handle: string): Promise<void> {
    this.stops.push(handle);
  }
}

/** The upstream exchange as a function of the request: `answer` decides what each browser says. */
class InMemoryUpstream implements UpstreamWebDriver {
  readonly requests: UpstreamNewSession[] = [];
  constructor(private readonly answer: (request: UpstreamNewSession) => Promise<CreatedSession>) {}
  newSession(request: UpstreamNewSession): Promise<CreatedSession> {
    this.requests.push(request);
    return this.answer(request);
  }
  async sendColorHeader(): Promise<void> {}
}

const opened = async (request: UpstreamNewSession): Promise<CreatedSession> => ({
  sessionId: `upstream-of-${request.endpoint.origin}`,
  capabilities: { browserName: 'chrome', browserVersion: '156.0.1' },
});

function setup(
  upstream = new InMemoryUpstream(opened),
  pools = ['first'],
  pool: Record<string, unknown> = { kind: 'local', maxSessions: 2 },
) {
  const launcher = new InMemoryLauncher();
  const sessions = new MemorySessionStore();
  const logger = new CollectingLogger();
  const metrics = new RecordingMetrics();
  const clock = new FixedClock();
  let stopping = false;
  const config = parseConfig(
    {
      browsers: { chrome: { defaultVersion: '156', versions: { '156': { pools } } } },
      pools: Object.fromEntries(pools.map((name) => [name, pool])),
    },
    { builtInBrowserVersion: 'unused' },
  );
  const deps: GridDeps = {
    config,
    runtimes: { local: { launcher }, ecs: { launcher } },
    poolTraits: POOL_TRAITS,
    sessions,
    queue: new SlotQueue(),
    ended: new EndedSessions(),
    tokens: new SessionTokens(Buffer.alloc(32, 3)),
    logger,
    metrics,
    clock,
    version: 'test',
    stopping: () => stopping,
    creating: new Set(),
  };
  const client = new AbortController();
  const request = (body: unknown, rest: Partial<NewSessionRequest> = {}): NewSessionRequest => ({
    user: 'guest',
    body: JSON.stringify(body),
    signal: client.signal,
    ...rest,
  });
  const shutDown = () => {
    stopping = true;
  };
  return { deps, upstream, launcher, sessions, logger, metrics, clock, client, request, shutDown };
}

const W3C_CHROME = { capabilities: { alwaysMatch: { browserName: 'chrome' } } };

describe('createSession', () => {
  it('serves DevTools where the launcher reaches them once the session is open, and offers se:cdp only then', async () => {
    const { deps, upstream, launcher, request } = setup();
    const reached = new Map<string, string>();
    // The address is known only after opened(), as a container's door or a local browser's port is.
    deps.runtimes.local = {
      launcher,
      opener: {
        opened: async (handle) => {
          reached.set(handle, handle === 'browser-1' ? '127.0.0.2:40001' : '');
        },
      },
      devtools: { devtools: (handle) => reached.get(handle) || undefined },
    };
    const claimsOf = (id: string) => {
      const check = deps.tokens.verify(id, 'guest');
      if (!check.ok) throw new Error(check.reason);
      return check.claims;
    };

    const served = await createSession(deps, upstream, request(W3C_CHROME));
    expect(served.session.capabilities).toMatchObject({
      'goog:chromeOptions': { debuggerAddress: '127.0.0.2:40001' },
      'se:cdp': 'ws://127.0.0.2:40001/devtools/browser',
    });
    expect(claimsOf(served.session.sessionId).devtools).toBe('127.0.0.2:40001');

    const unreached = await createSession(deps, upstream, request(W3C_CHROME));
    expect(unreached.session.capabilities).not.toHaveProperty('se:cdp');
    expect(claimsOf(unreached.session.sessionId).devtools).toBe('');
  });

  it('records what the session records, and how long the config keeps recordings, only when it records anything', async () => {
    const { deps, upstream, sessions, request } = setup();
    const keyOf = (id: string) => {
      const check = deps.tokens.verify(id, 'guest');
      return check.ok ? check.claims.key : '';
    };
    const asked = { browserName: 'chrome', 'se:recordVideo': true, 'se:name': 'checkout' };
    const recorded = await createSession(deps, upstream, request({ capabilities: { alwaysMatch: asked } }));
    expect(await sessions.get(keyOf(recorded.session.sessionId))).toMatchObject({
      name: 'checkout',
      recording: { video: true, log: false, retentionMs: 24 * 60 * 60_000 },
    });
    const plain = await createSession(deps, upstream, request(W3C_CHROME));
    expect((await sessions.get(keyOf(plain.session.sessionId)))?.recording).toBeUndefined();
  });

  it("refuses a socket session's video in a pool that records none, before any browser starts", async () => {
    const { deps, upstream, launcher, sessions, request } = setup(undefined, ['fargate'], {
      kind: 'ecs',
      cluster: 'gridgate-browsers',
      taskDefinition: 'gridgate-chrome:1',
      subnets: ['subnet-a'],
      securityGroups: ['sg-browsers'],
      networks: ['10.0.0.0/16'],
    });
    const asked = { browserName: 'chrome', 'se:recordVideo': true };
    const playwright = { ...asked, 'gridgate:options': { protocol: 'playwright' } };
    await expect(
      createSession(deps, upstream, request({ capabilities: { alwaysMatch: playwright } })),
    ).rejects.toMatchObject({
      code: 'session not created',
      message: expect.stringContaining('the pool fargate records no video'),
    });
    expect(launcher.started).toEqual([]);
    expect(await sessions.inUse()).toEqual({});
    // A WebDriver client's se:recordVideo is left as Selenium Grid's nodes leave it without a recorder.
    await createSession(deps, upstream, request({ capabilities: { alwaysMatch: asked } }));
    expect(launcher.started).toHaveLength(1);
  });

  it("refuses a socket session's video in a full pool that records none at once, not once a slot frees", async () => {
    const { deps, upstream, launcher, request } = setup(undefined, ['fargate'], {
      kind: 'ecs',
      maxSessions: 1,
      cluster: 'gridgate-browsers',
      taskDefinition: 'gridgate-chrome:1',
      subnets: ['subnet-a'],
      securityGroups: ['sg-browsers'],
      networks: ['10.0.0.0/16'],
    });
    await createSession(deps, upstream, request(W3C_CHROME)); // holds the pool's one slot
    const playwright = {
      browserName: 'chrome',
      'se:recordVideo': true,
      'gridgate:options': { protocol: 'playwright' },
    };
    const answer = createSession(deps, upstream, request({ capabilities: { alwaysMatch: playwright } })).then(
      () => 'created',
      (error: unknown) => error,
    );
    // Waiting in line would end only when the slot frees, which nothing here does.
    const queued = vi.waitFor(() => {
      if (deps.queue.lengths().waiting === 0) throw new Error('not in the queue yet');
      return 'waited in the queue';
    });
    await expect(Promise.race([answer, queued])).resolves.toMatchObject({
      code: 'session not created',
      message: expect.stringContaining('the pool fargate records no video'),
    });
    expect(deps.queue.lengths().waiting).toBe(0);
    expect(launcher.started).toHaveLength(1);
  });

  it('starts a browser, opens its session, records it and hands back a signed ID', async () => {
    const { deps, upstream, launcher, sessions, logger, request } = setup();
    const created = await createSession(deps, upstream, request(W3C_CHROME));
    expect(created).toMatchObject({ protocol: 'w3c', pool: { name: 'first' }, platformName: 'linux' });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]).toMatchObject({
      endpoint: { origin: 'http://127.0.0.1:9001' },
      capabilities: { browserName: 'chrome' },
      hub: false,
      noWait: false,
    });
    const check = deps.tokens.verify(created.session.sessionId, 'guest');
    expect(check.ok && check.claims).toMatchObject({
      pool: 'first',
      address: '127.0.0.1:9001',
      upstreamId: 'upstream-of-http://127.0.0.1:9001',
      handle: 'browser-1',
    });
    expect(created.session.capabilities).toEqual({ browserName: 'chrome', browserVersion: '156.0.1' });
    const key = check.ok ? check.claims.key : '';
    expect(await sessions.get(key)).toMatchObject({ user: 'guest', pool: 'first', handle: 'browser-1' });
    expect(await sessions.inUse()).toEqual({ first: 1 });
    expect(launcher.stops).toEqual([]);
    expect(logger.events()).toEqual(['SESSION_REQUESTED', 'SESSION_CREATED']);
  });

  it('reads a JSON Wire request and says so, for the answer’s shape', async () => {
    const { deps, upstream, request } = setup();
    const created = await createSession(
      deps,
      upstream,
      request({ desiredCapabilities: { browserName: 'chrome' } }),
    );
    expect(created.protocol).toBe('jsonwire');
  });

  it('tries the next pool when a browser refuses the session, stopping the one that refused', async () => {
    const upstream = new InMemoryUpstream(async (request) => {
      if (request.endpoint.origin.endsWith(':9001')) throw new LaunchFailure('refused', 'no', 'no');
      return opened(request);
    });
    const { deps, launcher, sessions, metrics, request } = setup(upstream, ['first', 'second']);
    const created = await createSession(deps, upstream, request(W3C_CHROME));
    expect(launcher.started.map((start) => start.pool.name)).toHaveLength(2);
    expect(launcher.stops).toEqual(['browser-1']);
    expect(created.pool.name).toBe(launcher.started[1]?.pool.name);
    expect(await sessions.inUse()).toEqual({ [created.pool.name]: 1 });
    expect(metrics.counts.map((count) => count.name)).toEqual(['SessionsRequested', 'SessionsCreated']);
  });

  it('answers a refusal of the capabilities at once, leaving no browser and no slot', async () => {
    const upstream = new InMemoryUpstream(async () => {
      throw invalidArgument('unknown capability goog:nonsense');
    });
    const { deps, launcher, sessions, logger, request } = setup(upstream, ['first', 'second']);
    await expect(createSession(deps, upstream, request(W3C_CHROME))).rejects.toMatchObject({
      code: 'invalid argument',
      message: 'unknown capability goog:nonsense',
    });
    expect(launcher.started).toHaveLength(1);
    expect(launcher.stops).toEqual(['browser-1']);
    expect(await sessions.inUse()).toEqual({});
    expect(logger.fieldsOf('SESSION_FAILED')).toMatchObject([{ reason: 'unknown capability goog:nonsense' }]);
  });

  it('stops what it started when the client goes away while the session opens', async () => {
    const { deps, launcher, sessions, client, request } = setup();
    const upstream = new InMemoryUpstream(async (req) => {
      client.abort();
      req.signal.throwIfAborted();
      return opened(req);
    });
    await expect(createSession(deps, upstream, request(W3C_CHROME))).rejects.toMatchObject({
      code: 'session not created',
      message: expect.stringContaining('the client went away'),
    });
    expect(launcher.stops).toEqual(['browser-1']);
    expect(await sessions.inUse()).toEqual({});
    expect(await sessions.running()).toEqual([]);
  });

  it('ends a session created while the grid shuts down, and refuses it', async () => {
    const { deps, launcher, sessions, request, shutDown } = setup();
    const upstream = new InMemoryUpstream(async (req) => {
      shutDown();
      return opened(req);
    });
    await expect(createSession(deps, upstream, request(W3C_CHROME))).rejects.toMatchObject({
      code: 'session not created',
      message: 'cannot create a chrome 156 session: the grid is shutting down',
    });
    expect(launcher.stops).toEqual(['browser-1']);
    expect(await sessions.inUse()).toEqual({});
  });

  it('starts the idle clock once the record is written, however long the store took to write it', async () => {
    const { deps, upstream, sessions, clock, request } = setup();
    const write = sessions.add.bind(sessions);
    sessions.add = async (record) => {
      clock.advance(deps.config.timeouts.idle + 1000); // a store slow to take the write (retries, throttling)
      await write(record);
    };
    const created = await createSession(deps, upstream, request(W3C_CHROME));
    const check = deps.tokens.verify(created.session.sessionId, 'guest');
    const key = check.ok ? check.claims.key : '';
    expect((await sessions.get(key))?.lastActivityAt).toBe(clock.now());
    expect(await expireSessions(deps)).toBe(0);
    expect((await sessions.running()).map((record) => record.key)).toEqual([key]);
  });

  it('leaves a session alone while its record is written, though the store shows it already', async () => {
    const { deps, upstream, sessions, clock, request } = setup();
    const write = sessions.add.bind(sessions);
    const swept: number[] = [];
    sessions.add = async (record) => {
      await write(record); // taken at once, answered only after a retry
      clock.advance(deps.config.timeouts.idle + 1000);
      swept.push(await expireSessions(deps));
    };
    const created = await createSession(deps, upstream, request(W3C_CHROME));
    expect(swept).toEqual([0]);
    const check = deps.tokens.verify(created.session.sessionId, 'guest');
    expect((await sessions.running()).map((record) => record.key)).toEqual([check.ok && check.claims.key]);
    expect(await expireSessions(deps)).toBe(0);
  });

  it('refuses a malformed body before anything starts', async () => {
    const { deps, upstream, launcher, logger } = setup();
    const malformed: NewSessionRequest = { user: 'guest', body: '{', signal: new AbortController().signal };
    await expect(createSession(deps, upstream, malformed)).rejects.toMatchObject({
      code: 'invalid argument',
    });
    expect(launcher.started).toEqual([]);
    expect(logger.events()).toEqual([]);
  });
});
