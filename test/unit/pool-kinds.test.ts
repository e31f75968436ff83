import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type PoolConfig, parseConfig } from '../../functions/core/config';
import { pool as poolSchema } from '../../functions/core/config-pools';
import { configTraitsOf } from '../../functions/core/config-traits-by-kind';
import { POOL_KINDS, POOL_TRAITS, poolKindOf, undeployedSettings } from '../../functions/pools';
import { POOL_CONFIGS } from '../../functions/pools/pool-configs';

const DEFAULTS = { builtInBrowserVersion: '1' };
const configWith = (pools: Record<string, unknown>) =>
  parseConfig(
    {
      browsers: { chrome: { defaultVersion: '1', versions: { '1': { pools: Object.keys(pools) } } } },
      pools,
    },
    DEFAULTS,
  );

describe('the pool kind registry', () => {
  it("names every kind the config's pools admit, each under its own name", () => {
    const admitted = poolSchema.options.map((option) => option.shape.kind.value).sort();
    expect(Object.keys(POOL_KINDS).sort()).toEqual(admitted);
    for (const [name, kind] of Object.entries(POOL_KINDS)) {
      expect(kind.name).toBe(name);
      expect(POOL_TRAITS[kind.name]).toBe(kind.traits);
    }
  });

  it("finds each kind's config side in its own folder, listed once", async () => {
    for (const kind of Object.values(POOL_KINDS)) {
      const folder = `../../functions/pools/${kind.name}/${kind.name}-pool-config.ts`;
      const exported: unknown[] = Object.values(await import(folder));
      const listed = POOL_CONFIGS.filter((config) => config.schema.shape.kind.value === kind.name);
      expect(listed, kind.name).toHaveLength(1);
      expect(exported, kind.name).toContain(listed[0]);
    }
  });

  it('gives a hub pool the hub as its remote end and a local pool its own machine', () => {
    const config = configWith({
      grid: { kind: 'hub', url: 'http://hub.test:4444/wd/hub', timeout: '5s' },
      here: { kind: 'local' },
    });
    const grid = config.pools.grid as PoolConfig;
    const here = config.pools.here as PoolConfig;
    expect(poolKindOf(grid).traits).toMatchObject({ remoteEnd: 'hub', boundToItsHead: false });
    expect(poolKindOf(here).traits).toMatchObject({
      remoteEnd: 'browser',
      boundToItsHead: true,
    });
    expect(configTraitsOf(grid).attemptTimeoutMs?.(grid, 1000)).toBe(5000);
    expect(configTraitsOf(here).attemptTimeoutMs).toBeUndefined();
    expect(configTraitsOf(grid).sharedEndpoint?.(grid).address).toBe('hub.test:4444');
  });

  it("asks each cloud pool's kind what it still lacks", () => {
    const config = configWith({
      fargate: {
        kind: 'ecs',
        cluster: 'c',
        taskDefinition: 't',
        subnets: ['subnet-1'],
        securityGroups: ['sg-1'],
      },
    });
    expect(undeployedSettings(config).length).toBeGreaterThan(0);
    expect(undeployedSettings(config).every((problem) => problem.startsWith('pools.fargate'))).toBe(true);
  });

  it('has the kinds whose browsers outlive a router, and only those, give the scheduled cleanup a part', () => {
    const cleaned = Object.values(POOL_KINDS).filter((kind) => kind.cleanup !== undefined);
    expect(cleaned.map((kind) => kind.name)).toEqual(['ecs', 'eks']);
  });

  it('has every kind run the Launcher contract from its own test folder', () => {
    const missing = Object.keys(POOL_KINDS).filter(
      (kind) => !existsSync(new URL(`../pools/${kind}/${kind}-launcher-contract.test.ts`, import.meta.url)),
    );
    expect(missing).toEqual([]);
  });
});
