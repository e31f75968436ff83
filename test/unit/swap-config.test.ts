import { describe, expect, it } from 'vitest';
import { type Config, parseConfig } from '../../functions/core/config';
import { type GridDeps, launcherFor, poolsNamed, sessionPool } from '../../functions/core/grid-deps';
import type { Launcher } from '../../functions/core/ports';
import { pruneRetiredPools, swapConfig, unservablePools } from '../../functions/core/swap-config';

const LOCAL = { kind: 'local', chromium: '/bin/true', chromedriver: '/bin/true' };

function configWith(pools: Record<string, object>, extra: Record<string, unknown> = {}): Config {
  const [first] = Object.keys(pools);
  return parseConfig(
    { browsers: { chrome: { versions: { '1': { pools: [first] } } } }, pools, ...extra },
    { builtInBrowserVersion: 'unused' },
  );
}

const localLauncher = { name: 'local launcher' } as unknown as Launcher;

function depsWith(config: Config): GridDeps {
  // swapConfig touches nothing but config, retiredPools, configLoadedAt and runtimes.
  return { config, runtimes: { local: { launcher: localLauncher } } } as unknown as GridDeps;
}

describe('swapConfig', () => {
  it('makes the new config the one in use and records when', () => {
    const deps = depsWith(configWith({ a: LOCAL }));
    const next = configWith({ a: LOCAL }, { timeouts: { idle: '10m' }, guest: null });
    expect(swapConfig(deps, next, 1234).restartNeeded).toEqual([]);
    expect(deps.config.timeouts.idle).toBe(600_000);
    expect(deps.config.guest).toBeNull();
    expect(deps.configLoadedAt).toBe(1234);
  });

  it('keeps the running port, host and usersFile and says a restart is needed for each', () => {
    const deps = depsWith(configWith({ a: LOCAL }, { port: 4444, host: '0.0.0.0' }));
    const next = configWith(
      { a: LOCAL },
      { port: 5555, host: '127.0.0.1', usersFile: '/etc/users', timeouts: { idle: '9m' } },
    );
    const { restartNeeded } = swapConfig(deps, next, 0);
    expect(restartNeeded).toEqual([
      { key: 'port', running: 4444, configured: 5555 },
      { key: 'host', running: '0.0.0.0', configured: '127.0.0.1' },
      { key: 'usersFile', running: undefined, configured: '/etc/users' },
    ]);
    expect(deps.config).toMatchObject({ port: 4444, host: '0.0.0.0', usersFile: undefined });
    expect(deps.config.timeouts.idle).toBe(540_000);
  });

  it('retires a removed pool, so its sessions still find it and its launcher', () => {
    const deps = depsWith(configWith({ a: LOCAL, b: LOCAL }));
    swapConfig(deps, configWith({ a: LOCAL }), 0);
    expect(deps.config.pools.b).toBeUndefined();
    expect(poolsNamed(deps, 'b').map((pool) => pool.name)).toEqual(['b']);
    expect(sessionPool(deps, { pool: 'b', address: '127.0.0.1:9515' })?.name).toBe('b');
    expect(launcherFor(deps, 'b')).toBe(localLauncher);
  });

  it('retires the old version of a changed pool next to the new one, but not an unchanged pool', () => {
    const deps = depsWith(configWith({ a: LOCAL, b: LOCAL }));
    swapConfig(deps, configWith({ a: LOCAL, b: { ...LOCAL, maxSessions: 9 } }), 0);
    expect(poolsNamed(deps, 'b').map((pool) => pool.maxSessions)).toEqual([9, 4]);
    expect(poolsNamed(deps, 'a')).toHaveLength(1);
  });

  it('keeps a pool retired twice once', () => {
    const deps = depsWith(configWith({ a: LOCAL, b: LOCAL }));
    swapConfig(deps, configWith({ a: LOCAL }), 0);
    swapConfig(deps, configWith({ a: LOCAL, b: LOCAL }), 0);
    swapConfig(deps, configWith({ a: LOCAL }), 0);
    expect(deps.retiredPools?.map((pool) => pool.name)).toEqual(['b']);
  });

  it('stops treating a pool as retired once it is configured again as it was', () => {
    const deps = depsWith(configWith({ a: LOCAL, b: LOCAL }));
    swapConfig(deps, configWith({ a: LOCAL }), 0);
    swapConfig(deps, configWith({ a: LOCAL, b: LOCAL }), 0);
    expect(deps.retiredPools).toEqual([]);
  });
});

describe('pruneRetiredPools', () => {
  it('forgets retired pools that hold no slot and keeps the others', () => {
    const deps = depsWith(configWith({ a: LOCAL, b: LOCAL, c: LOCAL }));
    swapConfig(deps, configWith({ a: LOCAL }), 0);
    expect(pruneRetiredPools(deps, { a: 3, c: 1 })).toEqual(['c']);
    expect(poolsNamed(deps, 'b')).toEqual([]);
    expect(sessionPool(deps, { pool: 'b', address: '127.0.0.1:9515' })).toBeUndefined();
  });
});

describe('unservablePools', () => {
  it('names every pool whose kind has no launcher running', () => {
    const deps = depsWith(configWith({ a: LOCAL }));
    const next = configWith({ a: LOCAL, h: { kind: 'hub', url: 'http://hub:4444/wd/hub' } });
    expect(unservablePools(deps, next)).toEqual([
      'pools.h: a hub pool needs a restart (no hub launcher is running)',
    ]);
    expect(unservablePools(deps, configWith({ a: LOCAL }))).toEqual([]);
  });
});
