/**
 * DNS rebinding against a grid other machines reach (`"host": "0.0.0.0"`, no publicUrl): a page at
 * rebind.attacker.example, its name pointed at the grid afterwards, sends an Origin that matches the Host
 * it names, as the grid's own pages do. The real Node server, reached over loopback only, with the headers
 * such a page's browser sends; WebDriver clients, which send no Origin, keep working at any name.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseConfig } from '../../functions/core/config';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { CollectingLogger } from '../support/fakes';
import { upgradeOutcome } from '../support/websocket-upgrade';

let grid: RunningGrid | undefined;
let logger: CollectingLogger;
afterEach(async () => {
  await grid?.close();
  grid = undefined;
});

async function start(config: Record<string, unknown> = {}): Promise<number> {
  logger = new CollectingLogger();
  grid = await startGrid(
    parseConfig({ port: 0, host: '0.0.0.0', ...config }, { builtInBrowserVersion: '1' }),
    randomBytes(32),
    logger,
    { reloadPollMs: 0 },
  );
  return grid.port;
}

interface Answer {
  status: number;
  value: Record<string, string>;
}

/** One request to the grid on 127.0.0.1, naming whatever host the test says. */
function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, value: JSON.parse(text).value }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/**
 * What Chromium sends for a page at `http://{name}:{port}` fetching from its own origin over plain HTTP:
 * an Origin on every method but GET and HEAD, and no Sec-Fetch-* (sent to trustworthy origins only).
 */
const fromPageAt = (name: string, port: number, method = 'GET') => ({
  host: `${name}:${port}`,
  ...(method === 'GET' ? {} : { origin: `http://${name}:${port}` }),
});
const NEW_SESSION = JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } });
const JSON_TYPE = { 'content-type': 'application/json' };

describe('a grid listening beyond loopback without publicUrl', { timeout: 60_000 }, () => {
  it('refuses a page at a rebound name: no session, no status page data, no WebSocket', async () => {
    const port = await start();
    const page = fromPageAt('rebind.attacker.example', port);
    const post = fromPageAt('rebind.attacker.example', port, 'POST');

    const created = await send(port, 'POST', '/session', { ...post, ...JSON_TYPE }, NEW_SESSION);
    expect(created.status).toBe(403);
    expect(created.value.error).toBe('invalid argument');
    expect(created.value.message).toContain(
      `not rebind.attacker.example:${port}: a page at another name may be another site's, its name pointed at this grid (DNS rebinding)`,
    );
    expect(logger.events()).not.toContain('SESSION_REQUESTED');
    expect((await send(port, 'GET', '/ui/api/overview', page)).status).toBe(403);

    // Browsers send an Origin on every WebSocket handshake.
    const socket = new WebSocket(`ws://127.0.0.1:${port}/session/any/se/bidi`, { headers: post });
    const upgrade = await upgradeOutcome(socket);
    expect('status' in upgrade && upgrade.status).toBe(403);
    expect('body' in upgrade && JSON.parse(upgrade.body).value.message).toContain('DNS rebinding');
  });

  it('serves WebDriver clients at any name, and pages at an IP address', async () => {
    const port = await start();
    const client = await send(port, 'GET', '/quota', { host: `rebind.attacker.example:${port}` });
    expect(client.status).toBe(200);
    expect((await send(port, 'GET', '/ui/api/overview', fromPageAt('127.0.0.1', port))).status).toBe(200);
    const own = fromPageAt('127.0.0.1', port, 'POST');
    const badCapabilities = JSON.stringify({
      capabilities: { alwaysMatch: { browserName: 'no-such-browser' } },
    });
    expect((await send(port, 'POST', '/session', { ...own, ...JSON_TYPE }, badCapabilities)).status).toBe(
      500,
    );
  });

  it('serves pages at the names allowedHosts and publicUrl give', async () => {
    const port = await start({
      allowedHosts: ['grid.internal'],
      publicUrl: 'https://grid.example.com/',
    });
    for (const name of ['grid.internal', 'grid.example.com']) {
      expect((await send(port, 'GET', '/ui/api/overview', fromPageAt(name, port))).status, name).toBe(200);
    }
    expect((await send(port, 'GET', '/ui/api/overview', fromPageAt('other.internal', port))).status).toBe(
      403,
    );
  });
});
