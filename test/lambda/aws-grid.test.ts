/** The router Lambda's wiring from its environment: the bundled config, the secret, the AWS adapters. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { type Launcher, noMetrics } from '../../functions/core/ports';
import { type AwsAdapters, awsGrid } from '../../functions/entry/aws-grid';
import { FakeLauncher } from '../support/fakes';

const SECRET = 'router-lambda-test-secret-32-bytes!!';

const GRID_CONFIG = {
  browsers: {
    chrome: { versions: { stable: { pools: ['fargate'] } } },
    firefox: { versions: { stable: { pools: ['hub'] } } },
  },
  pools: { fargate: { kind: 'ecs' }, hub: { kind: 'hub', url: 'http://127.0.0.1:4444/wd/hub' } },
  store: { kind: 'dynamodb', table: 'gridgate-sessions' },
};

function configFile(config: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'gridgate-aws-grid-')), 'gridgate.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

function testAdapters() {
  const made = { tables: [] as string[], launchers: 0 };
  const launcher = new FakeLauncher();
  const adapters: AwsAdapters = {
    sessionStore: (table) => {
      made.tables.push(table);
      return new MemorySessionStore();
    },
    ecsLauncher: async () => {
      made.launchers++;
      return launcher;
    },
    metrics: () => noMetrics,
  };
  return { adapters, made, launcher };
}

describe('awsGrid', () => {
  it('wires the store of the configured table and a launcher per pool kind', async () => {
    const { adapters, made } = testAdapters();
    const { deps } = await awsGrid(
      { GRIDGATE_CONFIG: configFile(GRID_CONFIG), GRIDGATE_SECRET: SECRET },
      adapters,
    );
    expect(made.tables).toEqual(['gridgate-sessions']);
    expect(Object.keys(deps.launchers).sort()).toEqual(['ecs', 'hub']);
    const id = deps.tokens.sign(
      {
        key: 'k',
        pool: 'hub',
        address: '127.0.0.1:4444',
        upstreamId: 'u',
        handle: '',
        devtools: '',
        createdAt: 1,
        maxAgeMs: 1000,
      },
      'guest',
    );
    expect(deps.tokens.verify(id, 'guest')).toMatchObject({ ok: true, claims: { pool: 'hub' } });
  });

  it('makes the ECS launcher with the first browser it starts, once', async () => {
    const { adapters, made, launcher } = testAdapters();
    const { deps } = await awsGrid(
      { GRIDGATE_CONFIG: configFile(GRID_CONFIG), GRIDGATE_SECRET: SECRET },
      adapters,
    );
    expect(made.launchers).toBe(0);
    const ecs = deps.launchers.ecs as Launcher;
    const request = {
      pool: deps.config.pools.fargate as never,
      key: 'k1',
      user: 'guest',
      idleTimeoutMs: 1000,
      capabilities: {},
      signal: new AbortController().signal,
    };
    const browser = await ecs.start(request);
    await ecs.stop(browser.handle);
    expect(made.launchers).toBe(1);
    expect(launcher.stops).toEqual([browser.handle]);
    await launcher.closeAll();
  });

  it.each([
    ['no GRIDGATE_CONFIG', {}, /GRIDGATE_CONFIG/],
    ['no secret', { GRIDGATE_CONFIG: 'CONFIG' }, /GRIDGATE_SECRET.*must be set/s],
    ['a short secret', { GRIDGATE_CONFIG: 'CONFIG', GRIDGATE_SECRET: 'short' }, /at least 32 characters/],
    [
      'only a Secrets Manager ARN',
      {
        GRIDGATE_CONFIG: 'CONFIG',
        GRIDGATE_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:grid',
      },
      /GRIDGATE_SECRET_ARN is not supported yet/,
    ],
  ])('refuses to start with %s', async (_, env, problem) => {
    const path = configFile(GRID_CONFIG);
    const withPath = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === 'CONFIG' ? path : v]));
    await expect(awsGrid(withPath, testAdapters().adapters)).rejects.toThrow(problem);
  });

  it('refuses local pools and a per-process store, naming both', async () => {
    const config = {
      ...GRID_CONFIG,
      browsers: { chrome: { versions: { stable: { pools: ['laptop'] } } } },
      pools: { laptop: { kind: 'local' } },
      store: { kind: 'memory' },
    };
    const failure = awsGrid(
      { GRIDGATE_CONFIG: configFile(config), GRIDGATE_SECRET: SECRET },
      testAdapters().adapters,
    );
    await expect(failure).rejects.toThrow(/pools\.laptop: local pools cannot run in Lambda/);
    await expect(failure).rejects.toThrow(/store: .*dynamodb/);
  });
});
