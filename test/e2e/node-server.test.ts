/** The `npm start` entry as a user runs it: config validation, a session, SIGHUP reloading, SIGTERM ending every browser. */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';
import { eventually, until } from '../support/until';

const servers: NodeServerProcess[] = [];
afterEach(async () => {
  // A failed test still ends its browsers: SIGTERM first, SIGKILL only when the server hangs.
  for (const server of servers.splice(0)) await server.stop();
});

function startServer(config: unknown): NodeServerProcess {
  const server = startNodeServer(config);
  servers.push(server);
  return server;
}

describe('the Node server entry', () => {
  it('refuses to start with an invalid config file and names every bad key', async () => {
    const server = startServer({ port: 'x', timeouts: { idle: '5 minutes' }, colour: 'green' });
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toContain('port:');
    expect(server.stderr()).toContain('timeouts.idle:');
    expect(server.stderr()).toContain('Unrecognized key: "colour"');
  });

  it('ends every browser and removes its profile when it receives SIGTERM', async () => {
    const server = startServer({ port: 0, host: '127.0.0.1' });
    const url = await server.url;
    const response = await request(`${url}/wd/hub/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
    });
    expect(response.statusCode).toBe(200);
    const { value } = (await response.body.json()) as {
      value: { capabilities: { chrome: { userDataDir: string } } };
    };
    const profile = value.capabilities.chrome.userDataDir;
    expect(pgrep(profile)).not.toBe('');

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(pgrep(profile)).toBe('');
    expect(existsSync(profile)).toBe(false);
    expect(server.lines.map((event) => event.event)).toEqual(
      expect.arrayContaining(['SESSION_CREATED', 'SERVER_STOPPING', 'SESSION_ENDED', 'SERVER_STOPPED']),
    );
  });
});

describe('reloading the config of the running Node server', () => {
  it('applies a rewritten config file on SIGHUP while a session keeps answering', async () => {
    const server = startServer({ port: 0, host: '127.0.0.1', timeouts: { idle: '5m' } });
    const url = await server.url;
    const created = await request(`${url}/wd/hub/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
    });
    expect(created.statusCode).toBe(200);
    const { value } = (await created.body.json()) as { value: { sessionId: string } };
    const session = `${url}/wd/hub/session/${value.sessionId}`;
    const ping = async () =>
      ((await (await request(`${url}/ping`)).body.json()) as { lastReloadTime: string }).lastReloadTime;
    const startedAt = await ping();

    // The built-in pool "local" that serves the session is replaced by "second", and the idle timeout grows.
    writeFileSync(
      server.configFile,
      JSON.stringify({
        port: 0,
        host: '127.0.0.1',
        timeouts: { idle: '10m' },
        browsers: { chrome: { versions: { '1': { pools: ['second'] } } } },
        pools: { second: { kind: 'local' } },
      }),
    );
    // lastReloadTime has millisecond precision: the reload must come a millisecond later at least.
    await until(() => Date.now() > Date.parse(startedAt), 'a millisecond has passed since the start');
    server.child.kill('SIGHUP');
    await eventually(
      () =>
        expect(server.lines).toContainEqual(
          expect.objectContaining({ event: 'CONFIG_RELOADED', trigger: 'SIGHUP', retiredPools: ['local'] }),
        ),
      10_000,
    );
    expect(await ping()).not.toBe(startedAt);
    expect(Date.parse(await ping())).toBeGreaterThan(Date.parse(startedAt));
    const status = (await (await request(`${url}/status`)).body.json()) as {
      value: { pools: { name: string }[] };
    };
    expect(status.value.pools.map((pool) => pool.name)).toEqual(['second']);

    const title = await request(`${session}/title`);
    expect(title.statusCode).toBe(200);
    expect(await title.body.json()).toEqual({ value: expect.any(String) });
    expect((await request(session, { method: 'DELETE' })).statusCode).toBe(200);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.lines.map((event) => event.event)).not.toContain('CONFIG_RELOAD_FAILED');
  });

  it('keeps the running config when the rewritten file is broken, and says why', async () => {
    const server = startServer({ port: 0, host: '127.0.0.1' });
    await server.url;
    writeFileSync(
      server.configFile,
      JSON.stringify({ port: 0, host: '127.0.0.1', timeouts: { idle: 'soon' } }),
    );
    server.child.kill('SIGHUP');
    await eventually(
      () =>
        expect(server.lines).toContainEqual(
          expect.objectContaining({
            event: 'CONFIG_RELOAD_FAILED',
            problems: [expect.stringMatching(/^timeouts\.idle:/)],
          }),
        ),
      10_000,
    );
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});

function pgrep(pattern: string): string {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}
