/**
 * End to end on real chromedriver and Chromium, with the default `isolation: "namespace"`: a local session's pages reach
 * the sites a test visits on this machine (a dev server on loopback) and nothing of the grid's: not their own
 * chromedriver (whose unauthenticated new-session would start a program on the machine), not another
 * session's chromedriver or DevTools port, not gridgate. Each address is tried by a page's fetch, which
 * resolves (opaque) when a connection was made and rejects when it was refused.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namespacesUnavailable } from '../../../../functions/pools/local/browser-namespace';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';

const TEST_MS = 120_000;
const unavailable = await namespacesUnavailable();

let grid: TestGrid;
let site: TestPageServer;

beforeAll(async () => {
  if (unavailable) return;
  [grid, site] = await Promise.all([startTestGrid(), startTestPageServer()]);
});

afterAll(async () => {
  await site?.close();
});

async function webdriver(method: string, path: string, body?: unknown) {
  const response = await fetch(`${grid.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return ((await response.json()) as { value: Record<string, unknown> & { sessionId?: string } }).value;
}

async function newSession(): Promise<{ id: string; driver: string; devtools: string }> {
  const created = await webdriver('POST', '/session', { capabilities: { alwaysMatch: {} } });
  const id = created.sessionId as string;
  const options = (created.capabilities as Record<string, { debuggerAddress?: string }>)[
    'goog:chromeOptions'
  ];
  const host = (await (await fetch(`${grid.url}/host/${id}`)).json()) as { value: { address: string } };
  return { id, driver: host.value.address, devtools: options?.debuggerAddress ?? '' };
}

/**
 * What the session's page gets from fetch(url): 'connected' (an answer, opaque), 'refused', or 'no answer'
 * within 5 s (pasta holds a connection it cannot make on this machine's side until it gives up).
 */
async function pageReaches(session: string, url: string, init: RequestInit = { mode: 'no-cors' }) {
  const answer = await webdriver('POST', `/session/${session}/execute/async`, {
    script:
      'const [url, init, done] = arguments; setTimeout(() => done("no answer"), 5000);' +
      ' fetch(url, init).then(() => done("connected"), () => done("refused"));',
    args: [url, init],
  });
  return answer as unknown as string;
}

const gridNamespaces = () =>
  execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.startsWith(`gridgate-${process.pid}-`));

describe.skipIf(unavailable !== undefined)(
  'a local session in a network namespace of its own',
  { timeout: TEST_MS },
  () => {
    it('reaches a dev server on this machine’s loopback and nothing of the grid’s', async () => {
      const alice = await newSession();
      const bob = await newSession();
      try {
        await webdriver('POST', `/session/${alice.id}/url`, { url: `${site.url}/` });
        expect(await webdriver('GET', `/session/${alice.id}/title`)).toBe('gridgate test page');
        const localhost = site.url.replace('127.0.0.1', 'localhost');
        expect(await pageReaches(alice.id, `${localhost}/`)).toBe('connected');
        const [driverPort, devtoolsPort] = [bob.driver, bob.devtools].map((a) => a.split(':')[1]);
        for (const target of [
          // Its own chromedriver and DevTools port, inside its namespace and as gridgate reaches them.
          'http://127.0.0.1:9515/status',
          'http://127.0.0.1:9222/json/list',
          `http://${alice.driver}/status`,
          `http://${alice.devtools}/json/list`,
          // Another session's, at the addresses gridgate reaches them by, and on this machine's 127.0.0.1.
          `http://${bob.driver}/sessions`,
          `http://${bob.devtools}/json/list`,
          `http://127.0.0.1:${driverPort}/sessions`,
          `http://127.0.0.1:${devtoolsPort}/json/list`,
        ]) {
          expect([target, await pageReaches(alice.id, target)]).not.toEqual([target, 'connected']);
        }
        // chromedriver's own door to a program on the machine: a text/plain POST a page may send.
        const shell: RequestInit = { method: 'POST', mode: 'no-cors', body: '{"capabilities":{}}' };
        expect(await pageReaches(alice.id, 'http://127.0.0.1:9515/session', shell)).not.toBe('connected');
        expect(await pageReaches(alice.id, `http://${bob.driver}/session`, shell)).not.toBe('connected');
      } finally {
        await Promise.all([alice, bob].map((s) => webdriver('DELETE', `/session/${s.id}`)));
      }
    });

    it('leaves no namespace behind once the grid has stopped', async () => {
      await newSession();
      expect(gridNamespaces().length).toBeGreaterThan(0);
      await grid.close();
      expect(gridNamespaces()).toEqual([]);
    });
  },
);
