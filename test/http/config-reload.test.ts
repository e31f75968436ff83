/** Reloading the config file into a running app: what changes at once, what stays, and sessions that live on. */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigReloader } from '../../functions/entry/config-reloader';
import {
  expectW3cError,
  type FakeGrid,
  jsonRequest,
  newSession,
  startFakeGrid,
  W3C_CHROME,
} from '../support/fake-grid';
import { eventually } from '../support/until';

const dir = mkdtempSync(join(tmpdir(), 'gridgate-reload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'gridgate.json');

// /bin/true stands in for Chromium and chromedriver: reading the file must not try to install anything.
const LOCAL = { kind: 'local', chromium: '/bin/true', chromedriver: '/bin/true' };

function configServedBy(...pools: string[]) {
  return {
    browsers: { chrome: { versions: { '156.0.7000.1': { pools } } } },
    pools: Object.fromEntries(pools.map((name) => [name, LOCAL])),
  };
}

function writeConfig(config: unknown): void {
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config));
}

let grid: FakeGrid;
let reloader: ConfigReloader;

beforeEach(() => {
  writeConfig(configServedBy('old'));
  grid = startFakeGrid({ config: configServedBy('old') });
  reloader = new ConfigReloader(grid.deps, path, { pollMs: 0 });
});
afterEach(async () => {
  reloader.close();
  await grid.close();
});

describe('reloading the config file', () => {
  it('swaps in a good file: new users rules and timeouts apply to the next request', async () => {
    writeConfig({ ...configServedBy('old'), users: { '*': { maxSessions: 1 } }, timeouts: { queue: '0s' } });
    expect(await reloader.reload('SIGHUP')).toBe(true);
    expect(grid.logger.fieldsOf('CONFIG_RELOADED')).toEqual([
      { path, trigger: 'SIGHUP', pools: ['old'], retiredPools: [] },
    ]);
    expect(grid.deps.config.timeouts.queue).toBe(0);
    await newSession(grid);
    const refused = await grid.app.request('/session', jsonRequest('POST', W3C_CHROME));
    await expectW3cError(refused, 500, 'session not created', /user guest already holds 1 of 1 sessions/);
  });

  it('moves /ping’s lastReloadTime on a successful reload only', async () => {
    const ping = async () =>
      ((await (await grid.app.request('/ping')).json()) as { lastReloadTime: string }).lastReloadTime;
    const started = await ping();
    grid.clock.advance(5000);
    writeConfig('{ not json');
    await reloader.reload('SIGHUP');
    expect(await ping()).toBe(started);
    writeConfig({ ...configServedBy('old'), timeouts: { idle: '1m' } });
    await reloader.reload('SIGHUP');
    expect(await ping()).toBe(new Date(grid.clock.now()).toISOString());
    expect(await ping()).not.toBe(started);
  });

  it('keeps the old config when the file is broken and logs every problem in it', async () => {
    const before = grid.deps.config;
    writeConfig({ ...configServedBy('old'), port: 'x', timeouts: { idle: '5 minutes' }, colour: 'green' });
    expect(await reloader.reload('SIGHUP')).toBe(false);
    expect(grid.deps.config).toBe(before);
    const [failure] = grid.logger.fieldsOf('CONFIG_RELOAD_FAILED');
    expect(failure).toMatchObject({ path, trigger: 'SIGHUP' });
    const problems = failure?.problems as string[];
    expect(problems).toHaveLength(3);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^port:/),
        expect.stringMatching(/^timeouts\.idle:/),
        expect.stringContaining('Unrecognized key: "colour"'),
      ]),
    );
    expect(grid.logger.events()).not.toContain('CONFIG_RELOADED');
  });

  it('keeps the old config when the file is not JSON or names browsers that do not exist', async () => {
    writeConfig('{ "pools": ');
    expect(await reloader.reload('SIGHUP')).toBe(false);
    writeConfig({ ...configServedBy('old'), pools: { other: LOCAL } });
    expect(await reloader.reload('SIGHUP')).toBe(false);
    const [notJson, badReference] = grid.logger.fieldsOf('CONFIG_RELOAD_FAILED');
    expect(notJson?.problems).toEqual([expect.stringContaining('not valid JSON')]);
    expect(badReference?.problems).toEqual([
      'browsers.chrome.versions.156.0.7000.1.pools.0: no pool named "old"',
    ]);
    expect(Object.keys(grid.deps.config.pools)).toEqual(['old']);
  });

  it('keeps the running port, host and usersFile, says a restart is needed, and applies the rest', async () => {
    writeConfig({ ...configServedBy('old'), port: 9999, host: '127.0.0.2', timeouts: { idle: '1m' } });
    expect(await reloader.reload('SIGHUP')).toBe(true);
    expect(grid.logger.fieldsOf('CONFIG_RESTART_NEEDED')).toEqual([
      { path, key: 'port', running: 4444, configured: 9999 },
      { path, key: 'host', running: '127.0.0.1', configured: '127.0.0.2' },
    ]);
    expect(grid.deps.config).toMatchObject({ port: 4444, host: '127.0.0.1' });
    expect(grid.deps.config.timeouts.idle).toBe(60_000);
  });

  it('lets a request waiting for a full pool in as soon as a reload raises the pool’s limit', async () => {
    const pool = (maxSessions: number) => ({
      ...configServedBy('old'),
      pools: { old: { ...LOCAL, maxSessions } },
    });
    writeConfig(pool(1));
    await reloader.reload('SIGHUP');
    await newSession(grid);
    const waiting = grid.app.request('/session', jsonRequest('POST', W3C_CHROME));
    await eventually(() => expect(grid.logger.events()).toContain('SESSION_QUEUED'));
    writeConfig(pool(2));
    await reloader.reload('SIGHUP');
    expect((await waiting).status).toBe(200);
    expect(grid.logger.fieldsOf('SESSION_CREATED')).toHaveLength(2);
  });

  it('lets a session in a pool the reload removed answer commands until it ends', async () => {
    const id = await newSession(grid);
    const upstream = grid.launcher.upstream();
    writeConfig(configServedBy('new'));
    expect(await reloader.reload('SIGHUP')).toBe(true);
    expect(grid.logger.fieldsOf('CONFIG_RELOADED')[0]).toMatchObject({
      pools: ['new'],
      retiredPools: ['old'],
    });

    const command = await grid.app.request(`/session/${id}/url`, jsonRequest('POST', { url: 'about:blank' }));
    expect(command.status).toBe(200);
    expect(upstream.commands().map((c) => c.path)).toEqual([`/session/${upstream.sessionIds[0]}/url`]);
    expect(((await (await grid.app.request(`/host/${id}`)).json()) as { value: object }).value).toMatchObject(
      { pool: 'old', kind: 'local' },
    );
    await newSession(grid);
    expect(grid.logger.fieldsOf('SESSION_CREATED').map((fields) => fields.pool)).toEqual(['old', 'new']);

    expect((await grid.app.request(`/session/${id}`, { method: 'DELETE' })).status).toBe(200);
    await reloader.reload('SIGHUP');
    expect(grid.logger.fieldsOf('CONFIG_RELOADED')[1]).toMatchObject({ retiredPools: [] });
    // Once its last session ended, the removed pool is gone for good: its IDs are refused offline.
    await expectW3cError(await grid.app.request(`/session/${id}/url`), 404, 'invalid session id', /"old"/);
  });

  it('notices a file replaced by rename, as editors save it', async () => {
    const polling = new ConfigReloader(grid.deps, path, { pollMs: 10 });
    try {
      const next = join(dir, 'gridgate.json.tmp');
      writeFileSync(next, JSON.stringify({ ...configServedBy('old'), timeouts: { maxAge: '2h' } }));
      renameSync(next, path);
      await eventually(() => expect(grid.logger.fieldsOf('CONFIG_RELOADED')).toHaveLength(1));
      expect(grid.logger.fieldsOf('CONFIG_RELOADED')[0]).toMatchObject({ trigger: 'file changed' });
      expect(grid.deps.config.timeouts.maxAge).toBe(7_200_000);
    } finally {
      polling.close();
    }
  });

  it('reloads a file that changed after the config in use was read, on the first poll', async () => {
    const polling = new ConfigReloader(grid.deps, path, { pollMs: 10, fingerprint: 'before start-up' });
    try {
      await eventually(() => expect(grid.logger.fieldsOf('CONFIG_RELOADED')).toHaveLength(1));
      // Five polls' time on purpose: a reload on every poll would show here.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(grid.logger.fieldsOf('CONFIG_RELOADED')).toHaveLength(1);
    } finally {
      polling.close();
    }
  });

  it('reports a broken file once, not on every poll', async () => {
    const polling = new ConfigReloader(grid.deps, path, { pollMs: 10 });
    try {
      writeConfig('{');
      await eventually(() => expect(grid.logger.fieldsOf('CONFIG_RELOAD_FAILED')).toHaveLength(1));
      // Ten polls' time on purpose: a failure reported on every poll would show here.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(grid.logger.fieldsOf('CONFIG_RELOAD_FAILED')).toHaveLength(1);
    } finally {
      polling.close();
    }
  });

  it('does nothing when the built-in defaults serve (no config file)', async () => {
    const before = grid.deps.config;
    expect(await new ConfigReloader(grid.deps, undefined).reload('SIGHUP')).toBe(false);
    expect(grid.deps.config).toBe(before);
    expect(grid.logger.events().filter((event) => event.startsWith('CONFIG_'))).toEqual([]);
  });
});
