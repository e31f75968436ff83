/**
 * POST /session refused or failing: bad payloads, unknown browsers and versions, a full pool, browsers
 * that fail or refuse, timeouts and clients that go away; the W3C error each gets, and nothing leaked.
 */
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import {
  created,
  expectW3cError,
  fakeGridPerTest,
  jsonRequest,
  postSession,
  W3C_CHROME,
} from '../support/fake-grid';
import { type FakeAnswer, jsonAnswer } from '../support/fakes';
import { eventually } from '../support/until';

const start = fakeGridPerTest();

/** `{"a":{"a":…1…}}`, `depth` objects inside one another. */
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('POST /session: refusals', () => {
  it('answers malformed JSON with 400 invalid argument, launching nothing', async () => {
    const grid = start();
    await expectW3cError(
      await postSession(grid, '{"capabilities":'),
      400,
      'invalid argument',
      /not valid JSON/,
    );
    expect(grid.launcher.started).toEqual([]);
  });

  it('answers a body without capabilities with 400 invalid argument', async () => {
    const grid = start();
    await expectW3cError(await postSession(grid, { browserName: 'chrome' }), 400, 'invalid argument');
  });

  it('answers an invalid capability with 400 invalid argument', async () => {
    const grid = start();
    await expectW3cError(
      await postSession(grid, {
        capabilities: { alwaysMatch: { browserName: 'chrome', pageLoadStrategy: 'fast' } },
      }),
      400,
      'invalid argument',
      /pageLoadStrategy/,
    );
  });

  it.each([
    ['a proxy type in upper case', { proxy: { proxyType: 'SYSTEM' } }],
    ['a page load timeout as a string', { timeouts: { pageLoad: '10' } }],
    ['a fractional implicit timeout', { timeouts: { implicit: 2.5 } }],
    ['an unknown timeout', { timeouts: { pageLoad: 10, invalid: 10 } }],
    ['a prompt behaviour in upper case', { unhandledPromptBehavior: 'DISMISS' }],
    ['acceptInsecureCerts as a string', { acceptInsecureCerts: 'false' }],
    ['webSocketUrl as a number', { webSocketUrl: 1 }],
    ['strictFileInteractability as a list', { strictFileInteractability: [] }],
    ['goog:chromeOptions that is not an object', { 'goog:chromeOptions': 'headless' }],
    ['Chromium arguments that are not strings', { 'goog:chromeOptions': { args: [1] } }],
  ])('answers %s with 400 invalid argument, launching nothing (W3C §7.2)', async (_what, capability) => {
    const grid = start();
    for (const capabilities of [
      { alwaysMatch: { browserName: 'chrome', ...capability } },
      { firstMatch: [{ browserName: 'chrome', ...capability }] },
    ]) {
      await expectW3cError(
        await postSession(grid, { capabilities }),
        400,
        'invalid argument',
        new RegExp(Object.keys(capability)[0] as string),
      );
    }
    expect(grid.launcher.started).toEqual([]);
  });

  it.each([
    ['alwaysMatch', { alwaysMatch: null, firstMatch: [{ browserName: 'chrome' }] }],
    ['firstMatch', { alwaysMatch: { browserName: 'chrome' }, firstMatch: null }],
  ])(
    'answers %s: null with 400 invalid argument: only a missing member defaults',
    async (_what, capabilities) => {
      const grid = start();
      await expectW3cError(await postSession(grid, { capabilities }), 400, 'invalid argument');
      expect(grid.launcher.started).toEqual([]);
    },
  );

  it.each([
    [
      'W3C chromeOptions',
      (deep: string) =>
        `{"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":${deep}}}}`,
    ],
    [
      'a W3C extension capability',
      (deep: string) => `{"capabilities":{"firstMatch":[{"browserName":"chrome","x:y":${deep}}]}}`,
    ],
    [
      'a W3C proxy',
      (deep: string) => `{"capabilities":{"alwaysMatch":{"browserName":"chrome","proxy":${deep}}}}`,
    ],
    [
      'JSON Wire chromeOptions',
      (deep: string) => `{"desiredCapabilities":{"browserName":"chrome","chromeOptions":${deep}}}`,
    ],
  ])(
    'answers %s nested 10,000 deep with 400 invalid argument naming the limit, launching nothing',
    async (_what, body) => {
      const grid = start();
      const deep = nestedObjects(10_000);
      await expectW3cError(
        await postSession(grid, body(deep)),
        400,
        'invalid argument',
        /new session body nests objects and lists more than 200 levels deep/,
      );
      expect(grid.launcher.started).toEqual([]);
      expect(grid.logger.events()).not.toContain('REQUEST_FAILED');
    },
  );

  it('takes capabilities nested as deep as chromedriver reads (200 levels)', async () => {
    const grid = start();
    // The body's object, capabilities, alwaysMatch and goog:chromeOptions are four levels of the 200.
    const prefs = nestedObjects(196);
    await created(
      await postSession(
        grid,
        `{"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":{"prefs":${prefs}}}}}`,
      ),
    );
  });

  it('passes a browser’s invalid argument through as 400, stopping it and trying no other pool', async () => {
    const refuse = (): FakeAnswer =>
      jsonAnswer(400, {
        value: {
          error: 'invalid argument',
          message:
            "invalid argument: cannot parse capability: goog:chromeOptions\nfrom invalid argument: cannot parse mobileEmulation\nfrom invalid argument: 'nope' must be a valid device",
          stacktrace: '#0 0x55',
        },
      });
    const grid = start({
      config: {
        browsers: { chrome: { versions: { '156': { pools: ['a', 'b'] } } } },
        pools: { a: { kind: 'local' }, b: { kind: 'local' } },
      },
      launcher: { newSession: refuse },
    });
    await expectW3cError(
      await postSession(grid, {
        capabilities: {
          alwaysMatch: {
            browserName: 'chrome',
            'goog:chromeOptions': { mobileEmulation: { deviceName: 'nope' } },
          },
        },
      }),
      400,
      'invalid argument',
      /'nope' must be a valid device/,
    );
    expect(grid.launcher.started).toHaveLength(1);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(await grid.sessions.inUse()).toEqual({});
    expect(grid.logger.events()).toContain('SESSION_FAILED');
  });

  it('answers an unknown browser with 500 session not created, naming what was asked and what is offered', async () => {
    const grid = start();
    const message = await expectW3cError(
      await postSession(grid, {
        capabilities: {
          firstMatch: [{ browserName: 'safari', browserVersion: '17' }, { browserName: 'firefox' }],
        },
      }),
      500,
      'session not created',
    );
    expect(message).toContain('browserName "safari", browserVersion "17"');
    expect(message).toContain('browserName "firefox"');
    expect(message).toContain('chrome 156.0.7000.1 (linux)');
    expect(grid.launcher.started).toEqual([]);
  });

  it('answers an unoffered version with 500 session not created', async () => {
    const grid = start();
    await expectW3cError(
      await postSession(grid, {
        capabilities: { alwaysMatch: { browserName: 'chrome', browserVersion: '15' } },
      }),
      500,
      'session not created',
      /browserVersion "15"/,
    );
  });

  it('answers with 500 session not created at once when the pool is full and queueing is off', async () => {
    const grid = start({
      config: { pools: { local: { kind: 'local', maxSessions: 1 } }, timeouts: { queue: '0s' } },
    });
    await created(await postSession(grid, W3C_CHROME));
    const response = await postSession(grid, W3C_CHROME);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectW3cError(response, 500, 'session not created', /pool local is full \(1 sessions\)/);
    expect(grid.launcher.started).toHaveLength(1);
    expect(await grid.sessions.inUse()).toEqual({ local: 1 });
  });

  it('releases the slot when the launcher fails', async () => {
    const grid = start({ launcher: { failStarts: true } });
    await expectW3cError(
      await postSession(grid, W3C_CHROME),
      500,
      'session not created',
      /no capacity for a browser/,
    );
    expect(await grid.sessions.inUse()).toEqual({});
    expect(await grid.sessions.running()).toEqual([]);
    expect(grid.logger.events()).toContain('SESSION_FAILED');
  });

  it('stops the browser and releases the slot when the browser refuses the session', async () => {
    const refuse = (): FakeAnswer =>
      jsonAnswer(500, {
        value: { error: 'session not created', message: 'Chrome failed to start', stacktrace: '' },
      });
    const grid = start({ launcher: { newSession: refuse } });
    const response = await postSession(grid, W3C_CHROME);
    // The same request would fail the same way: nothing tells the client to try again.
    expect(response.headers.get('retry-after')).toBeNull();
    await expectW3cError(response, 500, 'session not created', /Chrome failed to start/);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(grid.launcher.upstream().isClosed).toBe(true);
    expect(await grid.sessions.inUse()).toEqual({});
    expect(await grid.sessions.running()).toEqual([]);
  });

  it('stops the browser when it answers the new-session request with no JSON', async () => {
    const grid = start({ launcher: { newSession: () => ({ status: 200, body: '<html>oops</html>' }) } });
    await expectW3cError(await postSession(grid, W3C_CHROME), 500, 'session not created', /no JSON/);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(await grid.sessions.inUse()).toEqual({});
  });

  it('stops the browser when it answers without a session ID', async () => {
    const grid = start({ launcher: { newSession: () => jsonAnswer(200, { value: { capabilities: {} } }) } });
    await expectW3cError(
      await postSession(grid, W3C_CHROME),
      500,
      'session not created',
      /without a session/,
    );
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(await grid.sessions.inUse()).toEqual({});
  });

  it('never creates more sessions than the pool allows when requests race', async () => {
    const grid = start({ config: { timeouts: { queue: '0s' } } });
    const responses = await Promise.all(Array.from({ length: 6 }, () => postSession(grid, W3C_CHROME)));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 500, 500, 500, 500]);
    expect(grid.launcher.started).toHaveLength(2);
    expect(await grid.sessions.inUse()).toEqual({ local: 2 });
  });

  it('stops the browser when its session ID is too long to carry in gridgate’s', async () => {
    const grid = start({
      launcher: {
        newSession: () => jsonAnswer(200, { value: { sessionId: 'x'.repeat(70), capabilities: {} } }),
      },
    });
    await expectW3cError(await postSession(grid, W3C_CHROME), 500, 'session not created', /too long/);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(await grid.sessions.inUse()).toEqual({});
    expect(await grid.sessions.running()).toEqual([]);
  });

  it('gives up, stopping what it started, when creation outlasts the new-session timeout', async () => {
    const grid = start({
      config: { timeouts: { newSession: '200ms' } },
      launcher: { newSession: () => new Promise<FakeAnswer>(() => {}) },
    });
    const response = await postSession(grid, W3C_CHROME);
    // A busy grid, not a broken browser: the client may try again, as after a queue timeout.
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectW3cError(response, 500, 'session not created', /longer than 200ms/);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(await grid.sessions.inUse()).toEqual({});
  });

  it('tries another pool when the first one fails', async () => {
    const grid = start({
      config: {
        browsers: { chrome: { versions: { '156.0': { pools: ['one', 'two'] } } } },
        pools: { one: { kind: 'local' }, two: { kind: 'local' } },
      },
      launcher: { failStarts: 1 },
    });
    await created(await postSession(grid, W3C_CHROME));
    expect(grid.launcher.started).toHaveLength(1);
    expect(Object.values(await grid.sessions.inUse())).toEqual([1]);
  });

  it('stops the browser and releases the slot when the client goes away during creation', async () => {
    const grid = start({ launcher: { newSession: () => new Promise<FakeAnswer>(() => {}) } });
    const client = new AbortController();
    const pending = grid.app.request('/session', {
      ...jsonRequest('POST', W3C_CHROME),
      signal: client.signal,
    });
    await eventually(() => expect(grid.launcher.started[0]?.upstream.requests.length ?? 0).toBe(1));
    client.abort();
    await expectW3cError(await pending, 500, 'session not created', /the client went away/);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(await grid.sessions.inUse()).toEqual({});
    expect(await grid.sessions.running()).toEqual([]);
  });

  it('releases the slot when the client goes away while the browser is starting', async () => {
    const grid = start({ launcher: { hold: true } });
    const client = new AbortController();
    const pending = grid.app.request('/session', {
      ...jsonRequest('POST', W3C_CHROME),
      signal: client.signal,
    });
    await eventually(async () => expect((await grid.sessions.inUse()).local ?? 0).toBe(1));
    client.abort();
    await expectW3cError(await pending, 500, 'session not created', /the client went away/);
    expect(await grid.sessions.inUse()).toEqual({});
  });

  it('answers an unexpected failure with 500 unknown error and a generic message, logging the cause', async () => {
    const sessions = new MemorySessionStore();
    sessions.acquire = async () => {
      throw new Error('the table is on fire');
    };
    const grid = start({ sessions });
    const message = await expectW3cError(await postSession(grid, W3C_CHROME), 500, 'unknown error');
    expect(message).not.toContain('fire');
    expect(grid.logger.fieldsOf('REQUEST_FAILED')).toEqual([
      expect.objectContaining({ method: 'POST', path: '/session', error: 'Error: the table is on fire' }),
    ]);
  });
});
