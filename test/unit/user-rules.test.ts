import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../functions/core/config';
import { WebDriverError } from '../../functions/core/errors';
import { matchForUser, ruleFilter, userRule } from '../../functions/core/user-rules';

const DEFAULTS = { builtInBrowserVersion: '156.0.7000.1' };

const CATALOG = {
  browsers: {
    chrome: {
      aliases: ['chromium'],
      defaultVersion: '157.0.1',
      versions: { '156.0.1': { pools: ['one', 'two'] }, '157.0.1': { pools: ['one', 'two'] } },
    },
    firefox: { versions: { '140.0': { pools: ['two'] } } },
  },
  pools: { one: { kind: 'local' }, two: { kind: 'local' } },
};

function config(users: Record<string, unknown>, catalog: Record<string, unknown> = CATALOG) {
  return parseConfig({ ...catalog, users }, DEFAULTS);
}

function problems(input: Record<string, unknown>): string[] {
  try {
    parseConfig(input, DEFAULTS);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebDriverError);
    expect((error as WebDriverError).code).toBe('session not created');
    return (error as WebDriverError).message;
  }
  throw new Error('expected a refusal');
}

describe('userRule', () => {
  it('is the user’s own entry when there is one', () => {
    expect(userRule(config({ alice: { maxSessions: 2 }, '*': { maxSessions: 1 } }), 'alice')).toEqual({
      maxSessions: 2,
    });
  });

  it('is the "*" entry, as a whole, for a user without one', () => {
    const rule = { maxSessions: 1, browsers: { chrome: '*' } };
    expect(userRule(config({ '*': rule }), 'bob')).toEqual(rule);
  });

  it('is no rule at all (every browser and pool, no per-user limit) with neither', () => {
    expect(userRule(config({ alice: { maxSessions: 2 } }), 'bob')).toEqual({});
  });

  it('does not mistake Object.prototype’s keys for users', () => {
    const rules = config({ '*': { maxSessions: 1 } });
    expect(userRule(rules, 'constructor')).toEqual({ maxSessions: 1 });
    expect(userRule(rules, '__proto__')).toEqual({ maxSessions: 1 });
  });
});

describe('ruleFilter', () => {
  it('lets everything through when the rule names no browsers and no pools', () => {
    const filter = ruleFilter({});
    expect(filter.version('firefox', '1')).toBe(true);
    expect(filter.pool('anything')).toBe(true);
  });

  it('allows every version for "*", and versions by exact match or dotted prefix otherwise', () => {
    const filter = ruleFilter({ browsers: { chrome: ['156'], firefox: '*' } });
    expect(filter.version('chrome', '156.0.1')).toBe(true);
    expect(filter.version('chrome', '156')).toBe(true);
    expect(filter.version('chrome', '1560.0')).toBe(false);
    expect(filter.version('chrome', '157.0.1')).toBe(false);
    expect(filter.version('firefox', '140.0')).toBe(true);
    expect(filter.version('edge', '1')).toBe(false);
  });

  it('allows only the listed pools', () => {
    const filter = ruleFilter({ pools: ['two'] });
    expect(filter.pool('two')).toBe(true);
    expect(filter.pool('one')).toBe(false);
  });
});

describe('matchForUser', () => {
  it('matches as the catalog does for a user without a rule', () => {
    const match = matchForUser(config({}), 'alice', [{ browserName: 'chromium' }]);
    expect(match).toMatchObject({ browserName: 'chrome', browserVersion: '157.0.1' });
    expect(match.pools.map((pool) => pool.name)).toEqual(['one', 'two']);
  });

  it('picks the highest allowed version when the default is not allowed', () => {
    const rules = config({ alice: { browsers: { chrome: ['156'] } } });
    expect(matchForUser(rules, 'alice', [{ browserName: 'chrome' }]).browserVersion).toBe('156.0.1');
    expect(
      matchForUser(rules, 'alice', [{ browserName: 'chrome', browserVersion: 'latest' }]).browserVersion,
    ).toBe('156.0.1');
  });

  it('keeps only the pools the user may use', () => {
    const match = matchForUser(config({ alice: { pools: ['two'] } }), 'alice', [{ browserName: 'chrome' }]);
    expect(match.pools.map((pool) => pool.name)).toEqual(['two']);
  });

  it('skips capability sets the user may not use', () => {
    const rules = config({ alice: { browsers: { firefox: '*' } } });
    expect(
      matchForUser(rules, 'alice', [{ browserName: 'chrome' }, { browserName: 'firefox' }]).browserName,
    ).toBe('firefox');
  });

  it('names the browser and version the user may not use, and what the user may', () => {
    const rules = config({ alice: { browsers: { chrome: ['156'] } } });
    expect(refusal(() => matchForUser(rules, 'alice', [{ browserName: 'firefox' }]))).toBe(
      'user alice may not use firefox 140.0; alice may use chrome 156.0.1 (linux)',
    );
  });

  it('names the pools when the browser is allowed but none of its pools is', () => {
    const rules = config({ alice: { pools: ['one'] } });
    expect(refusal(() => matchForUser(rules, 'alice', [{ browserName: 'firefox' }]))).toBe(
      'user alice may not use the pools that serve firefox 140.0 (two); alice may use chrome 156.0.1 (linux), chrome 157.0.1 (linux)',
    );
  });

  it('says "nothing" when the rule allows nothing', () => {
    const rules = config({ '*': { browsers: {} } });
    expect(refusal(() => matchForUser(rules, 'bob', [{ browserName: 'chrome' }]))).toMatch(
      /bob may use nothing$/,
    );
  });

  it('says what the grid offers when nothing matches at all, whatever the rule', () => {
    const rules = config({ alice: { browsers: { chrome: '*' } } });
    expect(refusal(() => matchForUser(rules, 'alice', [{ browserName: 'safari' }]))).toMatch(
      /^no browser here matches \{browserName "safari"\}; this grid offers chrome 156\.0\.1/,
    );
  });
});

describe('users in the config file', () => {
  it('reads browsers, versions, pools and maxSessions, and a "*" entry', () => {
    const parsed = config({
      alice: { maxSessions: 2, browsers: { chrome: ['156', '157.0.1'], firefox: '*' }, pools: ['one'] },
      '*': { maxSessions: 1 },
    });
    expect(parsed.users.alice).toEqual({
      maxSessions: 2,
      browsers: { chrome: ['156', '157.0.1'], firefox: '*' },
      pools: ['one'],
    });
    expect(parsed.users['*']).toEqual({ maxSessions: 1 });
  });

  it('checks rules against the built-in catalog when there is none', () => {
    expect(
      parseConfig({ users: { alice: { browsers: { chrome: '*' }, pools: ['local'] } } }, DEFAULTS).users,
    ).toEqual({ alice: { browsers: { chrome: '*' }, pools: ['local'] } });
    expect(problems({ users: { alice: { browsers: { firefox: '*' }, pools: ['big'] } } })).toEqual([
      'users.alice.browsers.firefox: no browser named "firefox"',
      'users.alice.pools.0: no pool named "big"',
    ]);
  });

  it('rejects browsers, versions and pools the catalog does not have, at their paths', () => {
    expect(
      problems({
        ...CATALOG,
        users: {
          alice: { browsers: { chromium: '*', chrome: ['156', '15', '158'] }, pools: ['one', 'three'] },
        },
      }),
    ).toEqual([
      'users.alice.browsers.chromium: no browser named "chromium"',
      'users.alice.browsers.chrome.1: chrome has no version "15"',
      'users.alice.browsers.chrome.2: chrome has no version "158"',
      'users.alice.pools.1: no pool named "three"',
    ]);
  });

  it.each([
    [{ alice: { browsers: { chrome: [] } } }, 'users.alice.browsers.chrome'],
    [{ alice: { browsers: { chrome: 'latest' } } }, 'users.alice.browsers.chrome'],
    [{ alice: { maxSessions: 0 } }, 'users.alice.maxSessions'],
    [{ alice: { pools: 'one' } }, 'users.alice.pools'],
    [{ '**': {} }, 'users.**'],
  ])('rejects a malformed rule (%j) at its path', (users, path) => {
    const found = problems({ ...CATALOG, users });
    expect(found).toHaveLength(1);
    expect(found[0]?.startsWith(`${path}: `)).toBe(true);
  });

  it('rejects an unknown key in a rule', () => {
    expect(problems({ users: { alice: { maxSesions: 2 } } })).toEqual([
      expect.stringMatching(/^users\.alice: .*"maxSesions"/),
    ]);
  });
});
