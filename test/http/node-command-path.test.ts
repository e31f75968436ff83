/**
 * Commands through the Node server itself (startGrid), which takes them on its own path before the app
 * (servers/node/command-fast-path.ts): every behaviour the app's command route has, over real HTTP, to
 * a fake hub on loopback.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { CollectingLogger, FakeUpstream, jsonAnswer } from '../support/fakes';

let hub: FakeUpstream;
let grid: RunningGrid;
let logger: CollectingLogger;
let id: string;
let hubSessionId: string;

const CHROME = JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } });
const JSON_TYPE = 'application/json; charset=utf-8';

async function startHubGrid(hubUrl: string): Promise<RunningGrid> {
  const config = parseConfig(
    {
      port: 0,
      host: '127.0.0.1',
      browsers: { chrome: { defaultVersion: '1.0', versions: { '1.0': { pools: ['hub'] } } } },
      pools: { hub: { kind: 'hub', url: hubUrl, maxSessions: 4, username: 'hub-user', password: 'hub-pw' } },
    },
    { builtInBrowserVersion: 'unused' },
  );
  return startGrid(config, randomBytes(32), logger, { reloadPollMs: 0 });
}

async function newSession(target: RunningGrid): Promise<string> {
  const response = await fetch(`${target.url}/session`, {
    method: 'POST',
    headers: { 'content-type': JSON_TYPE },
    body: CHROME,
  });
  const body = (await response.json()) as { value: { sessionId: string } };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.value.sessionId;
}

/** A request with exactly these headers (fetch adds its own and refuses some), answered in full. */
function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string | string[]>; body?: string },
): Promise<{ status: number; headers: IncomingMessage['headers']; rawHeaders: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    // The path as written: a URL string would be normalized by Node's own URL parser first.
    const { host, hostname, port } = new URL(url);
    const path = url.slice(url.indexOf(host) + host.length);
    const sent = httpRequest(
      { hostname, port, path, method: options.method ?? 'GET', headers: options.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          resolve({
            status: answer.statusCode ?? 0,
            headers: answer.headers,
            rawHeaders: answer.rawHeaders,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(options.body);
  });
}

beforeAll(async () => {
  logger = new CollectingLogger();
  hub = await FakeUpstream.start();
  grid = await startHubGrid(`http://${hub.address}`);
  id = await newSession(grid);
  hubSessionId = hub.sessionIds[0] as string;
});
afterAll(async () => {
  await grid?.close();
  await hub?.close();
});
beforeEach(() => {
  hub.requests.splice(0);
  hub.respond = () => jsonAnswer(200, { value: 'from hub' });
});

describe('commands through the Node server', () => {
  it('forwards method, path, query and body to the session’s hub, under either root', async () => {
    const payload = JSON.stringify({ url: 'http://127.0.0.1:8080/page?a=1' });
    const answer = await rawRequest(`${grid.url}/session/${id}/url?trace=1&x=%20y`, {
      method: 'POST',
      headers: { 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(payload)) },
      body: payload,
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ value: 'from hub' });
    await rawRequest(`${grid.url}/wd/hub/session/${id}/element/abc-1.2/text`, {});
    await rawRequest(`${grid.url}/session/${id}`, {});
    expect(hub.commands().map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      { method: 'POST', path: `/session/${hubSessionId}/url?trace=1&x=%20y`, body: payload },
      { method: 'GET', path: `/session/${hubSessionId}/element/abc-1.2/text`, body: '' },
      { method: 'GET', path: `/session/${hubSessionId}`, body: '' },
    ]);
  });

  it('forwards a query as the app spells it', async () => {
    await rawRequest(`${grid.url}/session/${id}/url?q='x'`, {});
    expect(hub.commands().map(({ path }) => path)).toEqual([`/session/${hubSessionId}/url?q=%27x%27`]);
  });

  it('forwards a body sent without a Content-Length', async () => {
    const payload = JSON.stringify({ script: 'return 1', args: [] });
    const answer = await rawRequest(`${grid.url}/session/${id}/execute/sync`, {
      method: 'POST',
      headers: { 'content-type': JSON_TYPE, 'transfer-encoding': 'chunked' },
      body: payload,
    });
    expect(answer.status).toBe(200);
    expect(hub.commands()[0]).toMatchObject({ method: 'POST', body: payload });
  });

  it('answers executor scripts and session events itself: the hub gets neither, other scripts pass', async () => {
    const send = (path: string, payload: string) =>
      rawRequest(`${grid.url}/session/${id}/${path}`, {
        method: 'POST',
        headers: { 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(payload)) },
        body: payload,
      });
    const script = await send('execute/sync', '{"script":"sauce:job-result=failed","args":[]}');
    expect([script.status, JSON.parse(script.body)]).toEqual([200, { value: null }]);
    const event = await send('se/event', '{"eventType":"test:passed"}');
    expect([event.status, JSON.parse(event.body).value.success]).toEqual([200, true]);
    const other = '{"script":"return 1","args":[]}';
    expect((await send('execute/sync', other)).status).toBe(200);
    expect(hub.commands().map(({ path, body }) => ({ path, body }))).toEqual([
      { path: `/session/${hubSessionId}/execute/sync`, body: other },
    ]);
  });

  it('passes a hub session’s CDP commands over HTTP to the hub unread, byte for byte', async () => {
    // Its browser runs on the hub's machine: a folder there is the hub's to refuse, not gridgate's.
    const payload =
      '{"cmd": "Browser.setDownloadBehavior", "id": -1, "method": "Browser.setDownloadBehavior", "params": {"behavior": "allow", "downloadPath": "/etc"}, "pad": "x"}';
    const paths = [
      'goog/cdp/execute',
      'chromium/send_command',
      'chromium/send_command_and_get_result',
      'chromium/send_command_from_websocket',
    ];
    for (const path of paths) {
      const answer = await rawRequest(`${grid.url}/session/${id}/${path}`, {
        method: 'POST',
        headers: { 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(payload)) },
        body: payload,
      });
      expect(answer.status).toBe(200);
    }
    expect(hub.commands().map(({ path, body }) => ({ path, body }))).toEqual(
      paths.map((path) => ({ path: `/session/${hubSessionId}/${path}`, body: payload })),
    );
  });

  it('sends the hub its own Host and credentials, drops hop-by-hop headers and the client’s credentials and cookies, keeps the rest', async () => {
    await rawRequest(`${grid.url}/session/${id}/cookie`, {
      method: 'POST',
      headers: {
        host: 'grid.example.test',
        authorization: 'Basic Z3Vlc3Q6c2VjcmV0',
        cookie: 'grid-login=1',
        connection: 'keep-alive, x-private',
        'x-private': 'connection-specific',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        'x-trace': ['one', 'two'],
        'content-type': JSON_TYPE,
        'content-length': '2',
      },
      body: '{}',
    });
    const [command] = hub.commands();
    expect(command?.headers.host).toBe(hub.address);
    expect(command?.headers.authorization).toBe(`Basic ${Buffer.from('hub-user:hub-pw').toString('base64')}`);
    expect(command?.headers.cookie).toBeUndefined();
    expect(command?.headers['x-private']).toBeUndefined();
    expect(command?.headers['keep-alive']).toBeUndefined();
    expect(command?.headers.te).toBeUndefined();
    expect(command?.headers['x-trace']).toBe('one, two');
    expect(command?.headers['content-type']).toBe(JSON_TYPE);
  });

  it('returns the hub’s status, headers and body, hop-by-hop headers aside', async () => {
    hub.respond = () => ({
      status: 500,
      headers: {
        'content-type': JSON_TYPE,
        'x-upstream': 'hub',
        connection: 'x-hop',
        'x-hop': 'connection-specific',
        'set-cookie': 'a=1',
      },
      body: '{"value":{"error":"javascript error","message":"boom","stacktrace":""}}',
    });
    const answer = await rawRequest(`${grid.url}/session/${id}/execute/sync`, {
      method: 'POST',
      headers: { 'content-type': JSON_TYPE, 'content-length': '2' },
      body: '{}',
    });
    expect(answer.status).toBe(500);
    expect(answer.headers['x-upstream']).toBe('hub');
    expect(answer.headers['x-hop']).toBeUndefined();
    expect(answer.headers['set-cookie']).toEqual(['a=1']);
    expect(answer.body).toBe('{"value":{"error":"javascript error","message":"boom","stacktrace":""}}');
  });

  it('returns a 204 without a body and a large answer byte for byte', async () => {
    hub.respond = () => ({ status: 204, body: '' });
    const empty = await rawRequest(`${grid.url}/session/${id}/window`, { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBe('');
    const large = JSON.stringify({ value: 'x'.repeat(3 * 1024 * 1024) });
    hub.respond = () => jsonAnswer(200, JSON.parse(large));
    const answer = await rawRequest(`${grid.url}/session/${id}/screenshot`, {});
    expect(answer.body).toBe(large);
  });

  it('notes the command on the session’s record (idle tracking, command counts)', async () => {
    const key = grid.deps.tokens.verify(id, 'guest');
    if (!key.ok) throw new Error('the test’s own session ID does not verify');
    const before = (await grid.deps.sessions.get(key.claims.key))?.commands ?? 0;
    await rawRequest(`${grid.url}/session/${id}/title`, {});
    const record = await grid.deps.sessions.get(key.claims.key);
    expect(record?.commands).toBe(before + 1);
    expect(record?.lastCommand).toBe('GET /title');
    expect(record?.lastActivityAt).toBeGreaterThan(0);
  });

  it('counts commands in /ping’s numRequests', async () => {
    const ping = async () =>
      ((await (await fetch(`${grid.url}/ping`)).json()) as { numRequests: number }).numRequests;
    const before = await ping();
    await rawRequest(`${grid.url}/session/${id}/title`, {});
    await rawRequest(`${grid.url}/session/forged/title`, {});
    expect(await ping()).toBe(before + 2);
  });

  it('refuses forged and altered IDs without asking the hub, and logs the refusal', async () => {
    const altered = `${id.slice(0, -2)}${id.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of ['forged', altered]) {
      const answer = await rawRequest(`${grid.url}/session/${bad}/url`, {});
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body).value.error).toBe('invalid session id');
    }
    expect(hub.requests).toEqual([]);
    expect(logger.fieldsOf('SESSION_ID_REJECTED').at(-1)).toMatchObject({ reason: 'signature' });
  });

  it('answers its errors exactly as the app does', async () => {
    // Sec-Fetch-Site: none (a person typing the URL) sends the same request through the app instead.
    const own = await rawRequest(`${grid.url}/session/forged/url`, { headers: { accept: 'text/html' } });
    const app = await rawRequest(`${grid.url}/session/forged/url`, {
      headers: { accept: 'text/html', 'sec-fetch-site': 'none' },
    });
    const comparable = (raw: string[]) =>
      raw.filter((_, i) => i % 2 === 0 || !['Date'].includes(raw[i - 1] as string)).join('\n');
    expect(own.status).toBe(app.status);
    expect(own.body).toBe(app.body);
    expect(comparable(own.rawHeaders)).toBe(comparable(app.rawHeaders));
  });

  it('leaves requests a web page may have made to the app’s checks', async () => {
    const answer = await rawRequest(`${grid.url}/session/${id}/url`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': JSON_TYPE, 'content-length': '2' },
      body: '{}',
    });
    expect(answer.status).toBe(403);
    const form = await rawRequest(`${grid.url}/session/${id}/url`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'content-length': '2' },
      body: '{}',
    });
    expect(form.status).toBe(400);
    expect(hub.requests).toEqual([]);
  });

  it('ends the session and says so when its hub cannot be reached', async () => {
    const gone = await FakeUpstream.start();
    const other = await startHubGrid(`http://${gone.address}`);
    try {
      const session = await newSession(other);
      await gone.close();
      const answer = await rawRequest(`${other.url}/session/${session}/title`, {});
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body).value.error).toBe('invalid session id');
      expect(answer.headers['content-type']).toBe(JSON_TYPE);
    } finally {
      await other.close();
    }
  });
});

describe('a session that ended', () => {
  it('is refused without asking the hub, saying it was deleted', async () => {
    const session = await newSession(grid);
    const deleted = await rawRequest(`${grid.url}/session/${session}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    hub.requests.splice(0);
    const answer = await rawRequest(`${grid.url}/session/${session}/title`, {});
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body).value.message).toMatch(/deleted/);
    expect(hub.requests).toEqual([]);
  });
});

describe('a client that goes away', () => {
  let slowHub: Server;
  let arrived: Promise<IncomingMessage>;
  let other: RunningGrid;

  beforeAll(async () => {
    // A hub that creates sessions at once and never answers a command: only its connection closing ends it.
    let commandArrived: (request: IncomingMessage) => void = () => {};
    arrived = new Promise<IncomingMessage>((resolve) => {
      commandArrived = resolve;
    });
    slowHub = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/session') {
        req.resume();
        res.writeHead(200, { 'content-type': JSON_TYPE });
        res.end(JSON.stringify({ value: { sessionId: 'slow', capabilities: { browserName: 'chrome' } } }));
        return;
      }
      commandArrived(req);
    });
    slowHub.listen(0, '127.0.0.1');
    await once(slowHub, 'listening');
    other = await startHubGrid(`http://127.0.0.1:${(slowHub.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await other?.close();
    slowHub?.closeAllConnections();
    await new Promise((resolve) => slowHub?.close(resolve));
  });

  it('has the hub’s request aborted too', async () => {
    const session = await newSession(other);
    const sent = httpRequest(`${other.url}/session/${session}/url`);
    sent.on('error', () => {});
    sent.end();
    const command = await arrived;
    const closed = once(command.socket, 'close');
    sent.destroy();
    await closed;
  });
});
