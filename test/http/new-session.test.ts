/** POST /session through the whole app with fake browsers: a fresh browser, its capabilities, the signed ID. */
import { describe, expect, it } from 'vitest';
import { created, expectW3cError, fakeGridPerTest, postSession, W3C_CHROME } from '../support/fake-grid';
import { jsonAnswer } from '../support/fakes';

const start = fakeGridPerTest();

describe('POST /session', () => {
  it('starts a fresh browser and answers with a signed session ID and the browser’s capabilities', async () => {
    const grid = start();
    const body = await created(await postSession(grid, W3C_CHROME));
    const upstream = grid.launcher.upstream();
    expect(Object.keys(body)).toEqual(['value']);
    expect(body.value.sessionId).toMatch(/^[A-Za-z0-9_-]{100,160}$/);
    expect(body.value.sessionId).not.toContain(upstream.sessionIds[0]);
    expect(body.value.capabilities).toMatchObject({ browserName: 'chrome', browserVersion: '156.0.7000.1' });
    const check = grid.deps.tokens.verify(body.value.sessionId, 'guest');
    expect(check.ok && check.claims).toMatchObject({
      pool: 'local',
      address: upstream.address,
      upstreamId: upstream.sessionIds[0],
      handle: 'fake-1',
      createdAt: grid.clock.now(),
      maxAgeMs: 3_600_000,
    });
  });

  it.each([
    ['an empty one (chromedriver attached to a pre-started Chromium)', ''],
    ['none', undefined],
  ])('answers the catalog’s platformName when the browser reports %s', async (_, platformName) => {
    const grid = start({
      launcher: {
        newSession: () =>
          jsonAnswer(200, {
            value: { sessionId: 'abc', capabilities: { browserName: 'chrome', platformName } },
          }),
      },
    });
    const body = await created(await postSession(grid, W3C_CHROME));
    expect(body.value.capabilities).toMatchObject({ browserName: 'chrome', platformName: 'linux' });
  });

  it('takes a slot and records the session', async () => {
    const grid = start();
    await created(await postSession(grid, W3C_CHROME));
    expect(await grid.sessions.inUse()).toEqual({ local: 1 });
    expect(await grid.sessions.running()).toEqual([
      expect.objectContaining({
        user: 'guest',
        pool: 'local',
        browserName: 'chrome',
        browserVersion: '156.0.7000.1',
        handle: 'fake-1',
        idleTimeoutMs: 300_000,
        maxAgeMs: 3_600_000,
      }),
    ]);
    expect(grid.logger.events()).toEqual(['SESSION_REQUESTED', 'SESSION_CREATED']);
  });

  it('starts a new browser for every session', async () => {
    const grid = start();
    const first = await created(await postSession(grid, W3C_CHROME));
    const second = await created(await postSession(grid, W3C_CHROME));
    expect(first.value.sessionId).not.toBe(second.value.sessionId);
    expect(grid.launcher.started.map((entry) => entry.handle)).toEqual(['fake-1', 'fake-2']);
  });

  it('sends the browser the matched W3C capabilities, without gridgate’s own options', async () => {
    const grid = start();
    await created(
      await postSession(grid, {
        capabilities: {
          alwaysMatch: { 'gridgate:options': { idleTimeout: '1m' }, acceptInsecureCerts: true },
          firstMatch: [
            { browserName: 'safari' },
            { browserName: 'chromium', 'goog:chromeOptions': { args: ['--lang=de'] } },
          ],
        },
      }),
    );
    const [request] = grid.launcher.upstream().requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/session');
    expect(request?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      capabilities: {
        alwaysMatch: {
          acceptInsecureCerts: true,
          browserName: 'chromium',
          'goog:chromeOptions': { args: ['--lang=de'] },
        },
        firstMatch: [{}],
      },
    });
    expect(grid.launcher.started[0]?.request.capabilities).not.toHaveProperty('gridgate:options');
  });

  it('honours shorter idle timeout and maximum age from gridgate:options', async () => {
    const grid = start();
    const body = await created(
      await postSession(grid, {
        capabilities: {
          alwaysMatch: { browserName: 'chrome', 'gridgate:options': { idleTimeout: '1m', maxAge: '10m' } },
        },
      }),
    );
    expect(await grid.sessions.running()).toEqual([
      expect.objectContaining({ idleTimeoutMs: 60_000, maxAgeMs: 600_000 }),
    ]);
    const check = grid.deps.tokens.verify(body.value.sessionId, 'guest');
    expect(check.ok && check.claims.maxAgeMs).toBe(600_000);
  });

  it.each([
    ['idleTimeout', '6m'],
    ['maxAge', '2h'],
  ])(
    'refuses gridgate:options.%s longer than the config allows with 400, launching nothing',
    async (key, value) => {
      const grid = start();
      const response = await postSession(grid, {
        capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': { [key]: value } } },
      });
      await expectW3cError(
        response,
        400,
        'invalid argument',
        new RegExp(`gridgate:options.${key} ${value} is longer`),
      );
      expect(grid.launcher.started).toEqual([]);
      expect(await grid.sessions.inUse()).toEqual({});
    },
  );

  it('accepts a JSON Wire payload and answers with the session ID at the top level too', async () => {
    const grid = start();
    const body = await created(
      await postSession(grid, {
        desiredCapabilities: { browserName: 'chrome', version: '', platform: 'ANY' },
      }),
    );
    expect(body.sessionId).toBe(body.value.sessionId);
    expect(body.status).toBe(0);
    expect(grid.deps.tokens.verify(body.sessionId as string, 'guest').ok).toBe(true);
    const [request] = grid.launcher.upstream().requests;
    expect(JSON.parse(request?.body ?? '').capabilities.alwaysMatch).toEqual({ browserName: 'chrome' });
  });

  it('accepts a JSON Wire payload whose version is a prefix of an offered one', async () => {
    const grid = start();
    await created(
      await postSession(grid, { desiredCapabilities: { browserName: 'chrome', version: '156' } }),
    );
  });

  it('answers under /wd/hub as well', async () => {
    const grid = start();
    const body = await created(await postSession(grid, W3C_CHROME, {}, '/wd/hub'));
    expect(grid.deps.tokens.verify(body.value.sessionId, 'guest').ok).toBe(true);
  });
});
