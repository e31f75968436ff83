/**
 * Nobody in by the side door, through the whole app: forged forms, other sites' pages and launch options
 * that would reach beyond the session on the grid's machine start nothing; real clients' requests still do.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { UserDirectory } from '../../functions/core/ports';
import { attachWebSocketProxy } from '../../functions/servers/node/websocket-proxy';
import {
  expectW3cError,
  type FakeGrid,
  jsonRequest,
  newSession,
  startFakeGrid,
  W3C_CHROME,
} from '../support/fake-grid';
import { upgradeOutcome } from '../support/websocket-upgrade';

// The body a forged `<form enctype="text/plain">` sends: `name=value`, where name and value rebuild JSON.
const FORGED_BODY =
  '{"capabilities":{"alwaysMatch":{"goog:chromeOptions":{"args":["--window-size=800,600"]},"x:pad":"="}}}';

const grids: FakeGrid[] = [];
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const grid of grids.splice(0)) await grid.close();
});
function grid(options: Parameters<typeof startFakeGrid>[0] = {}): FakeGrid {
  const started = startFakeGrid(options);
  grids.push(started);
  return started;
}

describe('a web page’s requests', () => {
  it('refuses a forged text/plain form to /session at either root, and starts nothing', async () => {
    const g = grid();
    for (const path of ['/session', '/wd/hub/session']) {
      const response = await g.app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: FORGED_BODY,
      });
      await expectW3cError(
        response,
        400,
        'invalid argument',
        /must send JSON \(Content-Type: application\/json\), not text\/plain/,
      );
    }
    expect(g.launcher.started).toEqual([]);
  });

  it('serves a client that sends its JSON with no Content-Type, as the W3C conformance tests’ client does', async () => {
    const g = grid();
    const request = new Request('http://localhost:4444/session', {
      method: 'POST',
      body: new TextEncoder().encode(JSON.stringify(W3C_CHROME)),
    });
    expect(request.headers.get('content-type')).toBeNull();
    const response = await g.app.request(request);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(g.launcher.started).toHaveLength(1);
  });

  it('refuses a beacon-like POST with no Content-Type from another site’s page by its Origin', async () => {
    const g = grid();
    const response = await g.app.request('http://localhost:4444/session', {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' },
      body: new TextEncoder().encode(FORGED_BODY),
    });
    await expectW3cError(response, 403, 'invalid argument', /evil\.example/);
    expect(g.launcher.started).toEqual([]);
  });

  it('refuses another site’s page with 403 before any password is checked', async () => {
    const checked: string[] = [];
    const users: UserDirectory = {
      verify: async (user) => {
        checked.push(user);
        return true;
      },
    };
    const g = grid({ config: { usersFile: '/unused' }, users });
    const alice = { authorization: `Basic ${Buffer.from('alice:pw').toString('base64')}` };
    const response = await g.app.request(
      'http://localhost:4444/session',
      jsonRequest('POST', W3C_CHROME, {
        ...alice,
        origin: 'http://evil.example',
        'sec-fetch-site': 'cross-site',
      }),
    );
    await expectW3cError(
      response,
      403,
      'invalid argument',
      /web pages of http:\/\/evil\.example are refused/,
    );
    expect(checked).toEqual([]);
    expect(g.launcher.started).toEqual([]);
  });

  it('serves the grid’s own pages and configured sites, and WebDriver clients that send no Origin', async () => {
    const g = grid({ config: { allowedOrigins: ['https://ci.example.com'] } });
    const id = await newSession(g);
    const own = await g.app.request('http://localhost:4444/ui/api/overview', {
      headers: { origin: 'http://localhost:4444', 'sec-fetch-site': 'same-origin' },
    });
    expect(own.status).toBe(200);
    const ci = await g.app.request(`/session/${id}/url`, {
      headers: { origin: 'https://ci.example.com', 'sec-fetch-site': 'cross-site' },
    });
    expect(ci.status).toBe(200);
  });

  it('refuses a command to a running session from another site’s page', async () => {
    const g = grid();
    const id = await newSession(g);
    const response = await g.app.request(
      `http://localhost:4444/session/${id}/url`,
      jsonRequest('POST', { url: 'file:///etc/passwd' }, { origin: 'http://127.0.0.1:8080' }),
    );
    await expectW3cError(response, 403, 'invalid argument');
    expect(g.launcher.upstream().commands()).toEqual([]);
  });
});

describe('a web page’s WebSockets (cross-site WebSocket hijacking)', () => {
  it('refuses a session’s BiDi or CDP socket opened by another site’s page, before reaching the browser', async () => {
    const g = grid();
    const id = await newSession(g);
    const server = createServer();
    attachWebSocketProxy(server, g.deps);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    });
    const { port } = server.address() as AddressInfo;
    for (const path of [`/session/${id}/se/bidi`, `/session/${id}/se/cdp`]) {
      const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, {
        headers: { origin: 'http://evil.example' },
      });
      const outcome = await upgradeOutcome(socket);
      if ('socket' in outcome) throw new Error('the upgrade was accepted');
      expect(outcome.status, path).toBe(403);
      expect(JSON.parse(outcome.body).value.message).toContain(
        'web pages of http://evil.example are refused',
      );
    }
    expect(g.launcher.upstream().requests.filter((r) => r.path.includes('/se/'))).toEqual([]);
  });
});

describe('launch options that would reach beyond the session on the grid’s machine', () => {
  const asking = (options: Record<string, unknown>) =>
    jsonRequest('POST', {
      capabilities: { alwaysMatch: { browserName: 'chrome', 'goog:chromeOptions': options } },
    });

  it('refuses them in a local pool with invalid argument, before taking a slot or starting anything', async () => {
    const g = grid();
    for (const [options, named] of [
      [
        { args: ['--renderer-cmd-prefix=/bin/sh -c "touch /tmp/owned"'] },
        /^Chromium switch --renderer-cmd-prefix is not allowed on local pools: it runs a program/,
      ],
      [{ args: ['--enable-logging', '--log-file=/root/x.pth'] }, /Chromium switch --log-file is not allowed/],
      [{ args: ['--utility-cmd-prefix=xterm'] }, /--utility-cmd-prefix/],
      [{ args: ['--gpu-launcher=/bin/sh'] }, /--gpu-launcher/],
      [{ args: ['--browser-subprocess-path=/tmp/x'] }, /--browser-subprocess-path/],
      [{ binary: '/bin/sh' }, /goog:chromeOptions\.binary: another binary would run another program/],
      [{ logPath: '/root/x.pth' }, /goog:chromeOptions\.logPath: not allowed on local pools/],
    ] as const) {
      const response = await g.app.request('/session', asking(options));
      await expectW3cError(response, 400, 'invalid argument', named);
    }
    expect(g.launcher.started).toEqual([]);
    expect(g.logger.fieldsOf('SESSION_REQUESTED')).toEqual([]);
  });

  it('starts sessions with ordinary switches', async () => {
    const g = grid();
    const response = await g.app.request(
      '/session',
      asking({ args: ['--window-size=800,600', '--lang=de'] }),
    );
    expect(response.status).toBe(200);
    expect(g.launcher.started).toHaveLength(1);
  });
});
