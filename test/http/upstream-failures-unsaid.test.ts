/**
 * A browser or hub that fails under an HTTP request (a command, a Selenoid path, the status page's screenshot
 * or VNC viewer, a new session): the client is told so in a W3C error that names nothing of the grid's network
 * (the upstream's address and its socket's error are the grid's business), and the grid's log keeps the cause
 * with the session and its pool.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { expectW3cError, fakeGridPerTest, newSession, startFakeGrid } from '../support/fake-grid';
import { type Cleanups, session, vncGrid } from '../support/fake-novnc';
import { FakeSelenoid } from '../support/fake-selenoid';
import { ALICE } from '../support/page-users';
import { freePort } from '../support/processes';
import { newSessionAs, sessionApi, statusPageGrids } from '../support/status-page-grid';

const startGrid = fakeGridPerTest();
const startPageGrid = statusPageGrids();
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What the client must never read: the upstream's host and port, or the socket error naming them. */
function expectNothingOfTheNetwork(message: string, port: number): void {
  expect(message).not.toContain('127.0.0.1');
  expect(message).not.toContain(String(port));
  expect(message).not.toMatch(/ECONN|HPE_|protocol/);
}

/** A server on `port` that answers every connection with bytes that are not HTTP, then closes it. */
async function notHttpOn(port: number): Promise<void> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
}

const portOf = (address: string) => Number(address.split(':')[1]);

describe('an upstream failing under an HTTP request', () => {
  it('tells a command’s client plainly when its browser answers what is not HTTP, and logs the cause', async () => {
    const grid = startGrid();
    const id = await newSession(grid);
    const browser = grid.launcher.upstream();
    const port = portOf(browser.address);
    // Another program took the browser's port: the connection opens, the answer is not a browser's.
    await browser.close();
    await notHttpOn(port);

    const message = await expectW3cError(
      await grid.app.request(`/session/${id}/title`),
      502,
      'unknown error',
      'the browser could not be reached; the grid’s log says why',
    );
    expectNothingOfTheNetwork(message, port);
    const [running] = await grid.sessions.running();
    expect(grid.logger.fieldsOf('REQUEST_FAILED')).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: `/session/${id}/title`,
        session: running?.key,
        pool: 'local',
        cause: expect.stringMatching(/HTTP/),
      }),
    ]);
  });

  it('tells a Selenoid path’s client plainly when the hub cannot be reached, and logs the address', async () => {
    const hub = await FakeSelenoid.start(1);
    const grid = startFakeGrid({
      config: {
        browsers: { chrome: { versions: { '156.0': { pools: ['selenoid'] } } } },
        pools: { selenoid: { kind: 'hub', url: `http://${hub.address}/wd/hub` } },
      },
    });
    cleanups.push(() => grid.close());
    const id = await newSession(grid);
    const port = portOf(hub.address);
    await hub.close();

    const message = await expectW3cError(
      await grid.app.request(`/clipboard/${id}`),
      502,
      'unknown error',
      'the hub could not be reached; the grid’s log says why',
    );
    expectNothingOfTheNetwork(message, port);
    const check = grid.deps.tokens.verify(id, 'guest');
    expect(grid.logger.fieldsOf('REQUEST_FAILED')).toEqual([
      expect.objectContaining({
        path: `/clipboard/${id}`,
        session: check.ok ? check.claims.key : 'unverified',
        pool: 'selenoid',
        cause: expect.stringContaining(`ECONNREFUSED 127.0.0.1:${port}`),
      }),
    ]);
  });

  it('tells the status page plainly when a screenshot’s browser cannot be reached, and logs the address', async () => {
    const grid = startPageGrid();
    const key = await newSessionAs(grid, ALICE, 'alice');
    const browser = grid.launcher.upstream();
    const port = portOf(browser.address);
    await browser.close();

    const response = await grid.app.request(`${sessionApi(key)}/screenshot`, { headers: ALICE });
    const message = await expectW3cError(
      response,
      502,
      'unknown error',
      'the browser did not give a screenshot; the grid’s log says why',
      { page: true },
    );
    expectNothingOfTheNetwork(message, port);
    expect(grid.logger.fieldsOf('REQUEST_FAILED')).toEqual([
      expect.objectContaining({
        session: key,
        pool: 'local',
        cause: expect.stringContaining(`ECONNREFUSED 127.0.0.1:${port}`),
      }),
    ]);
  });

  it('tells the VNC viewer’s page plainly when noVNC cannot be reached, and logs the address', async () => {
    // Nothing listens on the session's noVNC port: its browser's machine is gone.
    const port = await freePort();
    const { grid } = await vncGrid(cleanups, port);
    const key = await session(grid);

    const response = await grid.app.request(`${sessionApi(key)}/vnc/vnc.html`, { headers: ALICE });
    const message = await expectW3cError(
      response,
      502,
      'unknown error',
      'the browser’s VNC viewer did not answer; the grid’s log says why',
      { page: true },
    );
    expectNothingOfTheNetwork(message, port);
    expect(grid.logger.fieldsOf('REQUEST_FAILED')).toEqual([
      expect.objectContaining({
        session: key,
        pool: 'fargate',
        cause: expect.stringContaining(`ECONNREFUSED 127.0.0.1:${port}`),
      }),
    ]);
  });

  it('tells a new session’s client plainly when its browser cannot be reached, and logs the address', async () => {
    const grid = startGrid();
    const port = await freePort();
    // A browser that started but whose WebDriver port nobody listens on (it died before its first request).
    const fake = grid.launcher;
    grid.deps.runtimes.local = {
      launcher: {
        start: async (request) => ({ ...(await fake.start(request)), address: `127.0.0.1:${port}` }),
        stop: (handle, context) => fake.stop(handle, context),
      },
    };

    const response = await grid.app.request('/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
    });
    const message = await expectW3cError(
      response,
      500,
      'session not created',
      'cannot create a chrome 156.0.7000.1 session: pool local: the browser could not be reached',
    );
    expectNothingOfTheNetwork(message, port);
    expect(grid.launcher.stops).toEqual(['fake-1']);
    expect(grid.logger.fieldsOf('SESSION_FAILED')).toEqual([
      expect.objectContaining({ reason: expect.stringContaining(`ECONNREFUSED 127.0.0.1:${port}`) }),
    ]);
  });
});
