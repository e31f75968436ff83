/**
 * `npm start` runs the production build: functions/ bundled into dist/server/ and run by plain node,
 * rebuilt when a source is newer than the build and left alone when it is not.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureServerBuild, SERVER_ENTRY, SERVER_NODE_FLAGS } from '../../scripts/server-build.mjs';
import {
  followServer,
  NODE_SERVER_ARGS,
  type NodeServerProcess,
  startNodeServer,
} from '../support/node-server-process';
import { startTestPageServer } from '../support/test-page-server';
import { until } from '../support/until';

let server: NodeServerProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('the production build', () => {
  it('serves the grid from dist/server, started as npm start starts it (plain node, no TypeScript loader)', async () => {
    server = startNodeServer({ port: 0 });
    const url = await server.url;
    const status = (await (await fetch(`${url}/status`)).json()) as { value: { ready: boolean } };
    expect(status.value.ready).toBe(true);
    // The command the tests run is the one `npm start` runs, with no loader flag in front of it.
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } })
      .scripts;
    expect(scripts.start).toBe(['exec', 'node', ...NODE_SERVER_ARGS].join(' '));
    const commandLine = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
    expect(commandLine.slice(1, 1 + NODE_SERVER_ARGS.length)).toEqual(NODE_SERVER_ARGS);
    expect(statSync(SERVER_ENTRY).isFile()).toBe(true);
  });

  it('stops when npm itself is sent SIGTERM, as `kill <npm’s pid>` or a process supervisor sends it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gridgate-npm-start-'));
    const config = join(dir, 'gridgate.json');
    writeFileSync(config, JSON.stringify({ port: 0, workers: 1 }));
    // Every process started with this config file: the server, whatever runs it.
    const serverProcesses = () =>
      readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(config);
          } catch {
            return false; // gone meanwhile
          }
        });
    // --silent: npm's own header lines would not be the server's JSON log.
    const npm = spawn('npm', ['start', '--silent', '--', '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const output = followServer(npm);
      const url = await output.url;
      npm.kill('SIGTERM');
      await output.exited;
      // npm runs a script through `sh -c`; without `exec` the shell dies of the signal and node runs on.
      await until(() => serverProcesses().length === 0, 'no process of that server runs', {
        timeoutMs: 15_000,
      });
      await expect(fetch(`${url}/status`)).rejects.toThrow();
      expect(output.lines.map((line) => line.event)).toContain('SERVER_STOPPED');
    } finally {
      for (const pid of serverProcesses()) process.kill(Number(pid), 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs every process of the server with the server's V8 flags, its workers and the image's command too", async () => {
    expect(SERVER_NODE_FLAGS.length).toBeGreaterThan(0);
    server = startNodeServer({ port: 0, host: '127.0.0.1', workers: 2 });
    await server.url;
    const running = server;
    const workers = () =>
      running.lines.filter((l) => l.event === 'WORKER_STARTED').map((l) => l.pid as number);
    await until(() => workers().length === 2, 'both workers listen');
    for (const pid of [running.child.pid as number, ...workers()]) {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect({ pid, flags: commandLine.slice(1, 1 + SERVER_NODE_FLAGS.length) }).toEqual({
        pid,
        flags: SERVER_NODE_FLAGS,
      });
    }
    const image = /^CMD (\[.*\])$/m.exec(readFileSync('Dockerfile', 'utf8'))?.[1];
    expect(JSON.parse(image ?? '[]')).toEqual(['node', ...SERVER_NODE_FLAGS, 'dist/server/node-server.mjs']);
  });

  it('holds only the parts of undici the server uses, not its fetch, WebSocket or caches', async () => {
    const dir = dirname(await ensureServerBuild());
    const built = [SERVER_ENTRY, ...readdirSync(join(dir, 'chunks')).map((name) => join(dir, 'chunks', name))]
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    // esbuild names each module it bundles in a comment (the build is not minified).
    expect(built).toContain('node_modules/undici/lib/dispatcher/agent.js');
    expect(built).not.toContain('node_modules/undici/index.js');
    expect(built).not.toContain('node_modules/undici/lib/web/fetch/index.js');
  });

  it('writes a HAR with chrome-har bundled (its own package.json read as an import)', async () => {
    const site = await startTestPageServer();
    try {
      server = startNodeServer({ port: 0, host: '127.0.0.1', workers: 1 });
      const url = await server.url;
      const send = async (method: string, path: string, body?: unknown) => {
        const answer = await fetch(`${url}${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect(answer.status, `${method} ${path}`).toBe(200);
        return ((await answer.json()) as { value: { sessionId?: string } }).value;
      };
      const created = await send('POST', '/session', {
        capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': { network: true } } },
      });
      const id = created.sessionId as string;
      await send('POST', `/session/${id}/url`, { url: `${site.url}/` });
      await send('DELETE', `/session/${id}`);
      const har = await fetch(`${url}/har/${id}.har`);
      expect(har.status).toBe(200);
      const archive = (await har.json()) as { log: { creator: { name: string }; entries: unknown[] } };
      expect(archive.log.creator.name).toBe('gridgate');
      expect(archive.log.entries.length).toBeGreaterThan(0);
    } finally {
      await site.close();
    }
  });

  it('ends a local session deleted through its workers by stopping the browser, without a quit', async () => {
    // Two workers (one runs everything in one process): a worker passes the DELETE to the primary, which runs
    // the browser and so knows that stopping it ends the session.
    server = startNodeServer({ port: 0, host: '127.0.0.1', workers: 2 });
    const url = await server.url;
    const json = { 'content-type': 'application/json' };
    const created = await fetch(`${url}/session`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        capabilities: { alwaysMatch: { browserName: 'chrome', 'selenoid:options': { enableLog: true } } },
      }),
    });
    const { sessionId } = ((await created.json()) as { value: { sessionId: string } }).value;
    expect((await fetch(`${url}/session/${sessionId}/title`)).status).toBe(200);
    const deleted = await fetch(`${url}/session/${sessionId}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ value: null });
    // Given its profile, chromedriver would have closed Chromium gracefully to write back a profile about to go.
    const log = await (await fetch(`${url}/logs/${sessionId}.log`)).text();
    expect(log).toContain('COMMAND GetTitle');
    expect(log).not.toContain('COMMAND Quit');
  });

  it('rebuilds when a source is newer than the build, and only then', async () => {
    await ensureServerBuild();
    const current = statSync(SERVER_ENTRY).mtimeMs;
    await ensureServerBuild();
    expect(statSync(SERVER_ENTRY).mtimeMs).toBe(current);

    // A build older than its sources, as after `git pull`.
    const longAgo = new Date(Date.now() - 3_600_000);
    utimesSync(SERVER_ENTRY, longAgo, longAgo);
    await ensureServerBuild();
    expect(statSync(SERVER_ENTRY).mtimeMs).toBeGreaterThan(longAgo.getTime() + 1000);
  });
});
