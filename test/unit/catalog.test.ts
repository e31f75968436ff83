import { describe, expect, it } from 'vitest';
import { describeCatalog, matchCatalog, orderByWeight, resolveVersion } from '../../functions/core/catalog';
import { type Config, type PoolConfig, parseConfig } from '../../functions/core/config';

function catalog(input: Record<string, unknown>): Config {
  return parseConfig(input, { builtInBrowserVersion: 'unused' });
}

const config = catalog({
  browsers: {
    chrome: {
      aliases: ['chromium', 'googlechrome'],
      defaultVersion: '156.0.7000.1',
      versions: {
        '156.0.7000.1': { pools: ['a', 'b'] },
        '140.0.1': { pools: ['b'] },
      },
    },
    Firefox: {
      versions: {
        '9.0': { pools: ['a'] },
        '10.0': { pools: ['a'] },
        '128.0': { platformName: 'windows-11', pools: ['c'] },
      },
    },
  },
  pools: {
    a: { kind: 'local' },
    b: { kind: 'local', weight: 3 },
    c: { kind: 'local' },
  },
});

describe('matchCatalog', () => {
  it('finds a browser by its configured name', () => {
    const match = matchCatalog(config, [{ browserName: 'chrome' }]);
    expect(match?.browserName).toBe('chrome');
    expect(match?.pools.map((pool) => pool.name)).toEqual(['a', 'b']);
  });

  it('finds a browser by an alias and answers with its configured name', () => {
    expect(matchCatalog(config, [{ browserName: 'chromium' }])?.browserName).toBe('chrome');
  });

  it('compares browser names and aliases exactly, as W3C §7.2 says', () => {
    expect(matchCatalog(config, [{ browserName: 'Firefox' }])?.browserName).toBe('Firefox');
    expect(matchCatalog(config, [{ browserName: 'googlechrome' }])?.browserName).toBe('chrome');
    expect(matchCatalog(config, [{ browserName: 'FIREFOX' }])).toBeUndefined();
    expect(matchCatalog(config, [{ browserName: 'GoogleChrome' }])).toBeUndefined();
    expect(matchCatalog(config, [{ browserName: 'chrome ' }])).toBeUndefined();
  });

  it('does not match an unknown browser', () => {
    expect(matchCatalog(config, [{ browserName: 'safari' }])).toBeUndefined();
  });

  it('uses the configured default browser when none is asked for', () => {
    const withDefault = catalog({ ...configInput(), defaultBrowser: 'chrome' });
    expect(matchCatalog(withDefault, [{}])?.browserName).toBe('chrome');
  });

  it('matches nothing when no browser is asked for and there is no default', () => {
    expect(matchCatalog(config, [{}])).toBeUndefined();
  });

  it('uses the default version when none is asked for', () => {
    expect(matchCatalog(config, [{ browserName: 'chrome' }])?.browserVersion).toBe('156.0.7000.1');
  });

  it('uses the highest version, compared numerically, when there is no default', () => {
    expect(matchCatalog(config, [{ browserName: 'Firefox' }])?.browserVersion).toBe('128.0');
  });

  it('serves the exact version asked for, with its own pools', () => {
    const match = matchCatalog(config, [{ browserName: 'chrome', browserVersion: '140.0.1' }]);
    expect(match?.browserVersion).toBe('140.0.1');
    expect(match?.pools.map((pool) => pool.name)).toEqual(['b']);
  });

  it('serves a dotted prefix of a version', () => {
    expect(matchCatalog(config, [{ browserName: 'chrome', browserVersion: '156' }])?.browserVersion).toBe(
      '156.0.7000.1',
    );
    expect(matchCatalog(config, [{ browserName: 'chrome', browserVersion: '156.0' }])?.browserVersion).toBe(
      '156.0.7000.1',
    );
  });

  it('does not treat a version as a prefix of a longer number ("15" is not "156.0")', () => {
    expect(matchCatalog(config, [{ browserName: 'chrome', browserVersion: '15' }])).toBeUndefined();
    expect(matchCatalog(config, [{ browserName: 'chrome', browserVersion: '156.0.7' }])).toBeUndefined();
  });

  it.each(['latest', 'stable', 'LATEST', ''])('treats version "%s" as the default', (version) => {
    expect(matchCatalog(config, [{ browserName: 'chrome', browserVersion: version }])?.browserVersion).toBe(
      '156.0.7000.1',
    );
  });

  it('compares the platform exactly: no other case, no prefix', () => {
    const match = matchCatalog(config, [
      { browserName: 'Firefox', browserVersion: '128', platformName: 'windows-11' },
    ]);
    expect(match?.platformName).toBe('windows-11');
    for (const platformName of ['Windows-11', 'windows', 'WINDOWS-11']) {
      expect(
        matchCatalog(config, [{ browserName: 'Firefox', browserVersion: '128', platformName }]),
      ).toBeUndefined();
    }
    expect(matchCatalog(config, [{ browserName: 'chrome', platformName: 'LINUX' }])).toBeUndefined();
  });

  it('passes over a candidate whose platform differs in case for the next one (W3C firstMatch)', () => {
    const match = matchCatalog(config, [
      { browserName: 'chrome', platformName: 'LINUX' },
      { browserName: 'chrome', platformName: 'linux' },
    ]);
    expect(match?.capabilities).toEqual({ browserName: 'chrome', platformName: 'linux' });
  });

  it('matches any platform when asked for "any" (Selenium clients’ Platform.ANY)', () => {
    expect(
      matchCatalog(config, [{ browserName: 'Firefox', browserVersion: '128', platformName: 'any' }]),
    ).toBeDefined();
  });

  it('does not match a platform the version is not offered on', () => {
    expect(matchCatalog(config, [{ browserName: 'chrome', platformName: 'windows' }])).toBeUndefined();
    expect(
      matchCatalog(config, [{ browserName: 'Firefox', browserVersion: '128', platformName: 'linux' }]),
    ).toBeUndefined();
  });

  it('answers with the first candidate in the client’s order that matches', () => {
    const match = matchCatalog(config, [
      { browserName: 'safari' },
      { browserName: 'chrome', browserVersion: '140' },
      { browserName: 'Firefox' },
    ]);
    expect(match?.browserName).toBe('chrome');
    expect(match?.browserVersion).toBe('140.0.1');
    expect(match?.capabilities).toEqual({ browserName: 'chrome', browserVersion: '140' });
  });
});

describe('resolveVersion', () => {
  it('picks the highest of several versions sharing a prefix, compared numerically', () => {
    expect(resolveVersion(['156.0.9', '156.0.10', '156.0.1', '157.0.1'], undefined, '156')).toBe('156.0.10');
  });

  it('prefers an exact version over a longer one it prefixes', () => {
    expect(resolveVersion(['156', '156.1'], undefined, '156')).toBe('156');
  });

  it('answers undefined when nothing matches', () => {
    expect(resolveVersion(['156.0'], undefined, '157')).toBeUndefined();
  });
});

describe('describeCatalog', () => {
  it('lists every browser, version and platform offered', () => {
    expect(describeCatalog(config)).toBe(
      'chrome 156.0.7000.1 (linux), chrome 140.0.1 (linux), Firefox 9.0 (linux), Firefox 10.0 (linux), Firefox 128.0 (windows-11)',
    );
  });
});

describe('orderByWeight', () => {
  const pools = Object.values(config.pools);
  const byName = (name: string) => config.pools[name] as PoolConfig;

  it('returns every pool exactly once', () => {
    expect(
      orderByWeight(pools)
        .map((pool) => pool.name)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
  });

  it('puts first the pool whose weighted key is largest', () => {
    // keys are random ** (1 / weight): a 0.9, b 0.1 ** (1/3) ≈ 0.46
    const draws = [0.9, 0.1];
    expect(
      orderByWeight([byName('a'), byName('b')], () => draws.shift() as number).map((p) => p.name),
    ).toEqual(['a', 'b']);
  });

  it('lets a heavier pool win an equal draw', () => {
    expect(orderByWeight([byName('a'), byName('b')], () => 0.5).map((p) => p.name)).toEqual(['b', 'a']);
  });

  it('puts a pool first in proportion to its weight', () => {
    const random = seededRandom(42);
    let bFirst = 0;
    const runs = 20_000;
    for (let i = 0; i < runs; i++) {
      if (orderByWeight([byName('a'), byName('b')], random)[0]?.name === 'b') bFirst++;
    }
    // weight 3 against 1: b should come first 3 times in 4
    expect(bFirst / runs).toBeGreaterThan(0.72);
    expect(bFirst / runs).toBeLessThan(0.78);
  });
});

function configInput() {
  return {
    browsers: { chrome: { versions: { '1.0': { pools: ['a'] } } } },
    pools: { a: { kind: 'local' } },
  };
}

/** mulberry32: a small deterministic generator, so the proportion test gives the same answer every run. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
