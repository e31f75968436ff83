/**
 * End to end on a local pool: a Playwright client's `exposeNetwork`. Playwright Test runs docs/playwright.md's
 * config (a webServer on the client's machine, `connectOptions.exposeNetwork: '<loopback>'`) in a namespace
 * standing for the client's machine: its site listens on that machine's own loopback, which the session's
 * browser reaches only through the client's tunnel (without exposeNetwork its localhost is the grid machine's).
 * Only what the pattern exposes goes through the tunnel: a loopback host outside it is refused, never connected
 * to, where Playwright's own server would connect to it from the grid's machine.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePortOn } from '../../functions/adapters/net/loopback-ports';
import { type ClientNamespace, openClientNamespace } from '../support/client-namespace';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { processGroupAlive } from '../support/processes';
import { playwrightServers } from '../support/socket-session-clients';
import { until } from '../support/until';

const run = promisify(execFile);
const cli = join(import.meta.dirname, '..', '..', 'node_modules', '@playwright', 'test', 'cli.js');
const SITE = '<!doctype html><title>client site</title><p id="served-by">the client</p>';
const docsConfig = (() => {
  const page = readFileSync(new URL('../../docs/playwright.md', import.meta.url), 'utf8');
  const blocks = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  return blocks.find((block) => block.includes('exposeNetwork')) as string;
})();

let grid: TestGrid;
let client: ClientNamespace;
const projects: string[] = [];
const wsUrl = () => grid.url.replace(/^http/, 'ws');

beforeAll(async () => {
  grid = await startTestGrid();
  client = await openClientNamespace(Number(new URL(grid.url).port));
});
afterAll(async () => {
  await client?.close();
  await grid?.close();
  for (const project of projects) rmSync(project, { recursive: true, force: true });
});
afterEach(async () => {
  await until(() => grid.launcher.running().length === 0, 'every session ended');
  await until(() => playwrightServers(process.pid).length === 0, 'no Playwright server left');
});

/**
 * The docs' config, as a user's project has it: its dev server is a small site on the client's `port`, and
 * the grid is this one; `exposed: false` takes the exposeNetwork line out.
 */
function project(port: number, { exposed }: { exposed: boolean }): string {
  const folder = mkdtempSync(join(import.meta.dirname, 'playwright', '.expose-'));
  projects.push(folder);
  const site = `require('node:http').createServer((_q, s) => s.end(${JSON.stringify(SITE)})).listen(${port}, '127.0.0.1')`;
  const config = docsConfig
    .replaceAll("'npm run dev'", JSON.stringify(`node -e ${JSON.stringify(site)}`))
    .replaceAll('localhost:3000', `localhost:${port}`)
    .replaceAll('ws://localhost:4444', wsUrl());
  writeFileSync(
    join(folder, 'playwright.config.ts'),
    exposed ? config : config.replace(/^.*exposeNetwork.*\n/m, ''),
  );
  copyFileSync(
    join(import.meta.dirname, 'playwright', 'client-site.spec.ts'),
    join(folder, 'client-site.spec.ts'),
  );
  return folder;
}

/** Playwright Test in the client's namespace; its output, failed or not. */
async function runInClient(folder: string): Promise<{ passed: boolean; output: string }> {
  const [command, args] = client.command(process.execPath, [
    cli,
    'test',
    '--config',
    join(folder, 'playwright.config.ts'),
    '--output',
    join(folder, 'results'),
    '--timeout',
    '20000',
  ]);
  return run(command, args, { cwd: folder, timeout: 240_000 }).then(
    ({ stdout }) => ({ passed: true, output: stdout }),
    (error: { stdout?: string; stderr?: string }) => ({
      passed: false,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
}

/** A site on this machine's loopback that serves `page` and counts the connections made to it. */
async function countingSite(
  page = '<title>not for this session</title>',
): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((_req, res) => res.end(page));
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

describe("a Playwright client's exposeNetwork", { timeout: 300_000 }, () => {
  it("runs Playwright Test against a site on the client's own loopback", async () => {
    // A port nothing of this machine listens on: the browser's own loopback cannot answer for the client's.
    const port = await freePortOn('127.0.0.1');
    const ran = await runInClient(project(port, { exposed: true }));
    expect(ran.output).toMatch(/1 passed/);
  });

  it("cannot reach the client's loopback without exposeNetwork", async () => {
    // The same port on the grid's machine, held for the whole run: a port merely free when picked may be taken
    // meanwhile by any other test's server. Without the tunnel the browser's localhost is the grid machine's.
    const gridMachine = await countingSite('<!doctype html><p id="served-by">the grid machine</p>');
    try {
      const ran = await runInClient(project(gridMachine.port, { exposed: false }));
      expect(ran.passed).toBe(false);
      expect(ran.output).toMatch(/Received: "the grid machine"/);
      expect(gridMachine.connections()).toBeGreaterThan(0);
    } finally {
      gridMachine.server.close();
    }
  });

  it('refuses a loopback host the pattern does not expose, and never connects to it', async () => {
    const other = await countingSite();
    const exposed = await countingSite();
    const browser = await chromium.connect(`${wsUrl()}/playwright/chromium?name=expose-one-port`, {
      exposeNetwork: `localhost:${exposed.port}`,
    });
    try {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${exposed.port}/`);
      expect(await page.title()).toBe('not for this session');
      for (const host of ['localhost', '127.0.0.1']) {
        await expect(page.goto(`http://${host}:${other.port}/`)).rejects.toThrow(
          /ERR_SOCKS_CONNECTION_FAILED/,
        );
      }
      expect(other.connections()).toBe(0);
    } finally {
      await browser.close();
      other.server.close();
      exposed.server.close();
    }
  });

  it("refuses the session plainly when the browser's network cannot be opened, its details logged", async () => {
    // The real listener, for a session whose browser ended just before: the namespace it names is gone.
    const runtime = grid.deps.runtimes.local as NonNullable<typeof grid.deps.runtimes.local>;
    const network = runtime.network as NonNullable<typeof runtime.network>;
    let ended: { handle: string; key?: string } | undefined;
    runtime.network = {
      async listen(handle) {
        const [session] = await grid.deps.sessions.running();
        ended = { handle, ...(session ? { key: session.key } : {}) };
        process.kill(-Number(handle), 'SIGKILL');
        await until(() => !processGroupAlive(Number(handle)), 'the browser ended');
        return network.listen(handle);
      },
    };
    try {
      const refusal = await chromium
        .connect(`${wsUrl()}/playwright/chromium?name=expose-gone`, { exposeNetwork: '<loopback>' })
        .then(
          (browser) => browser.close().then(() => 'connected'),
          (error: Error) => error.message,
        );
      const body = JSON.parse(/\{"value":.*\}/.exec(refusal)?.[0] ?? '{}') as unknown;
      expect(body).toEqual({
        value: {
          error: 'session not created',
          message:
            "exposeNetwork: the client's network could not be opened to the session's browser; the grid's log says why",
          stacktrace: '',
        },
      });
      expect(refusal).not.toMatch(/\/proc\/|ENOENT|\.cjs|\.ts\b|^\s+at /m);
      expect(ended?.key).toBeDefined();
      expect(grid.logger.fieldsOf('REQUEST_FAILED')).toContainEqual(
        expect.objectContaining({
          path: '/playwright/chromium',
          session: ended?.key,
          pool: expect.any(String),
          cause: expect.stringContaining(`/proc/${ended?.handle}/ns/net`),
        }),
      );
    } finally {
      runtime.network = network;
    }
  });
});
