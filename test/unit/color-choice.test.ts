import { describe, expect, it } from 'vitest';
import {
  type ColorSources,
  choosePools,
  metricColor,
  requestColor,
  unservedMessage,
} from '../../functions/core/color-choice';
import { type ColorsConfig, DEFAULT_RESERVED_COLORS, type PoolConfig } from '../../functions/core/config';
import { WebDriverError } from '../../functions/core/errors';

const COLORS: ColorsConfig = {
  header: 'X-Grid-Color',
  baseDomains: ['grid.example.com', 'example.com'],
  reserved: DEFAULT_RESERVED_COLORS,
  isolation: 'strict',
};
const LOOSE: ColorsConfig = { ...COLORS, isolation: 'loose' };

function pool(name: string, color?: string, region?: string): PoolConfig {
  return {
    name,
    kind: 'local',
    weight: 1,
    maxSessions: 2,
    chromedriver: '/usr/bin/chromedriver',
    chromium: '/usr/bin/chromium',
    headless: true,
    args: [],
    ...(color ? { color } : {}),
    ...(region ? { region } : {}),
  };
}

function thrown(work: () => unknown): WebDriverError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(WebDriverError);
    return error as WebDriverError;
  }
  throw new Error('expected an error');
}

describe('requestColor', () => {
  it.each<[string, ColorSources, { color: string; source: string } | undefined]>([
    ['no source says a colour', { options: undefined }, undefined],
    ['gridgate:options without a colour', { options: { idleTimeout: '1m' } }, undefined],
    ['the capability', { options: { color: 'green' } }, { color: 'green', source: 'gridgate:options.color' }],
    [
      'the capability before the header and the Host',
      { options: { color: 'green' }, header: 'blue', host: 'red.grid.example.com' },
      { color: 'green', source: 'gridgate:options.color' },
    ],
    ['the header', { options: {}, header: 'blue' }, { color: 'blue', source: 'header X-Grid-Color' }],
    [
      'the header, its surrounding spaces dropped, before the Host',
      { options: undefined, header: ' blue ', host: 'red.grid.example.com' },
      { color: 'blue', source: 'header X-Grid-Color' },
    ],
    [
      'the Host under a base domain',
      { options: undefined, header: null, host: 'red.grid.example.com' },
      { color: 'red', source: 'Host red.grid.example.com' },
    ],
    [
      'the Host with a port, a trailing dot and upper case (host names are case-insensitive)',
      { options: undefined, host: 'Red-2.GRID.example.com.:8443' },
      { color: 'red-2', source: 'Host red-2.grid.example.com' },
    ],
    [
      'the longest base domain that matches',
      { options: undefined, host: 'red.grid.example.com' },
      { color: 'red', source: 'Host red.grid.example.com' },
    ],
    ['a Host that is the base domain itself', { options: undefined, host: 'example.com' }, undefined],
    [
      'a base domain that lies under another base domain as a colour of that one',
      { options: undefined, host: 'grid.example.com' },
      { color: 'grid', source: 'Host grid.example.com' },
    ],
    ['a Host under no base domain', { options: undefined, host: 'red.other.org:4444' }, undefined],
    ['a Host that only ends like a base domain', { options: undefined, host: 'redexample.com' }, undefined],
    [
      'a 63-character colour',
      { options: { color: 'a'.repeat(63) } },
      { color: 'a'.repeat(63), source: 'gridgate:options.color' },
    ],
  ])('reads %s', (_, sources, expected) => {
    expect(requestColor(COLORS, sources)).toEqual(expected);
  });

  it.each<[string, ColorSources, string]>([
    [
      'a capability that is not a string',
      { options: { color: 7 } },
      'gridgate:options.color must be a string',
    ],
    [
      'an empty colour',
      { options: { color: '' } },
      'color "" from gridgate:options.color must be 1–63 characters long',
    ],
    [
      'a colour of 64 characters',
      { options: { color: 'a'.repeat(64) } },
      `color "${'a'.repeat(64)}" from gridgate:options.color must be 1–63 characters long`,
    ],
    [
      'an upper-case colour',
      { options: { color: 'Green' } },
      'color "Green" from gridgate:options.color must be lower case ("green")',
    ],
    [
      'a colour with other characters',
      { options: { color: 'feature_1' } },
      'color "feature_1" from gridgate:options.color may contain only a–z, 0–9 and "-"',
    ],
    [
      'two header values joined by a proxy',
      { options: undefined, header: 'green, blue' },
      'color "green, blue" from header X-Grid-Color may contain only a–z, 0–9 and "-"',
    ],
    [
      'an empty header',
      { options: undefined, header: '' },
      'color "" from header X-Grid-Color must be 1–63 characters long',
    ],
    [
      'a reserved name',
      { options: { color: 'release' } },
      'color "release" from gridgate:options.color is a reserved name (colors.reserved: test, regression, online, dev, release, pressure), not a colour',
    ],
    [
      'a reserved name in the Host',
      { options: undefined, host: 'online.grid.example.com' },
      'color "online" from Host online.grid.example.com is a reserved name',
    ],
    [
      'a Host label with other characters',
      { options: undefined, host: 'red_1.grid.example.com' },
      'color "red_1" from Host red_1.grid.example.com may contain only a–z, 0–9 and "-"',
    ],
    [
      'a Host with two labels before the base domain',
      { options: undefined, host: 'api.red.grid.example.com' },
      'Host api.red.grid.example.com has more than one label before the base domain grid.example.com',
    ],
  ])('refuses %s with invalid argument naming the rule', (_, sources, message) => {
    const error = thrown(() => requestColor(COLORS, sources));
    expect(error.code).toBe('invalid argument');
    expect(error.message).toContain(message);
  });

  it('takes the configured header’s name and reserved names', () => {
    const colors = { ...COLORS, header: 'X-YX-COLOR', reserved: ['prod'] };
    expect(requestColor(colors, { options: undefined, header: 'test' })).toEqual({
      color: 'test',
      source: 'header X-YX-COLOR',
    });
    expect(thrown(() => requestColor(colors, { options: undefined, header: 'prod' })).message).toContain(
      'from header X-YX-COLOR is a reserved name (colors.reserved: prod)',
    );
  });
});

const BASE = pool('base');
const BASE_US = pool('base-us', undefined, 'us');
const GREEN_EU = pool('green-eu', 'green', 'eu');
const GREEN_US = pool('green-us', 'green', 'us');
const BLUE = pool('blue', 'blue');

describe('choosePools', () => {
  it.each<[string, ColorsConfig, string | undefined, PoolConfig[], string, string[]]>([
    [
      'a coloured request goes to every pool of its colour, in any region',
      COLORS,
      'green',
      [BASE, GREEN_EU, BLUE, GREEN_US],
      'colored',
      ['green-eu', 'green-us'],
    ],
    [
      'a coloured request goes to pools of its colour under loose isolation too',
      LOOSE,
      'green',
      [BASE, GREEN_EU, BLUE],
      'colored',
      ['green-eu'],
    ],
    [
      'a colour no pool has falls back to the uncoloured pools, never to another colour',
      COLORS,
      'red',
      [BASE, GREEN_EU, BASE_US, BLUE],
      'baseline',
      ['base', 'base-us'],
    ],
    [
      'a colour no pool has falls back to the uncoloured pools under loose isolation too',
      LOOSE,
      'red',
      [BASE, GREEN_EU],
      'baseline',
      ['base'],
    ],
    [
      'an uncoloured request goes to the uncoloured pools (strict)',
      COLORS,
      undefined,
      [BASE, GREEN_EU, BASE_US],
      'baseline',
      ['base', 'base-us'],
    ],
    [
      'an uncoloured request goes to any pool with loose isolation',
      LOOSE,
      undefined,
      [BASE, GREEN_EU, BLUE],
      'any',
      ['base', 'green-eu', 'blue'],
    ],
    [
      'an uncoloured request may use coloured pools alone with loose isolation',
      LOOSE,
      undefined,
      [GREEN_EU],
      'any',
      ['green-eu'],
    ],
  ])('%s', (_, colors, color, pools, rule, chosen) => {
    const choice = choosePools(colors, color, pools, 'chrome 156.0');
    expect(choice.rule).toBe(rule);
    expect(choice.pools.map((p) => p.name)).toEqual(chosen);
  });

  it.each<[string, ColorsConfig, string | undefined, PoolConfig[], string]>([
    [
      'a colour no pool has, with no uncoloured pool to fall back to',
      COLORS,
      'red',
      [GREEN_EU, BLUE],
      'no pool serving chrome 156.0 has color "red" and none is uncolored to fall back to; colors there: "green", "blue"',
    ],
    [
      'an uncoloured request where every pool is coloured (strict)',
      COLORS,
      undefined,
      [GREEN_EU, GREEN_US],
      'every pool serving chrome 156.0 is colored and the request has no color (isolation is strict); colors there: "green": ask for one with gridgate:options.color or the X-Grid-Color header',
    ],
  ])('refuses %s with session not created', (_, colors, color, pools, message) => {
    const error = thrown(() => choosePools(colors, color, pools, 'chrome 156.0'));
    expect(error.code).toBe('session not created');
    expect(error.message).toBe(message);
  });
});

describe('unservedMessage', () => {
  it.each<[string, ColorsConfig, string | undefined, PoolConfig[], string]>([
    [
      'says that pools of the colour exist but could not serve (down, full or failing), and no fallback happened',
      COLORS,
      'green',
      [BASE, GREEN_EU, GREEN_US],
      'cannot create a chrome 156.0 session: pool green-eu is full; pools of color "green" exist (green-eu, green-us) but none could serve, and the session is not sent to uncolored pools, which would mix environments',
    ],
    [
      'leaves a baseline failure as it is',
      COLORS,
      'red',
      [BASE, GREEN_EU],
      'cannot create a chrome 156.0 session: pool green-eu is full',
    ],
    [
      'leaves a loose failure as it is',
      LOOSE,
      undefined,
      [BASE, GREEN_EU],
      'cannot create a chrome 156.0 session: pool green-eu is full',
    ],
  ])('%s', (_, colors, color, pools, expected) => {
    const choice = choosePools(colors, color, pools, 'chrome 156.0');
    expect(unservedMessage(choice, 'cannot create a chrome 156.0 session: pool green-eu is full')).toBe(
      expected,
    );
  });
});

describe('metricColor', () => {
  it.each<[string, ColorsConfig, string | undefined, PoolConfig[], string | undefined]>([
    ['a colour a pool is configured with', COLORS, 'green', [BASE, GREEN_EU], 'green'],
    [
      'no colour for a colour no pool has (clients choose those freely)',
      COLORS,
      'made-up-1',
      [BASE],
      undefined,
    ],
    ['no colour for an uncoloured request', LOOSE, undefined, [BASE, GREEN_EU], undefined],
  ])('is %s', (_, colors, color, pools, expected) => {
    expect(metricColor(choosePools(colors, color, pools, 'chrome 156.0'))).toBe(expected);
  });
});
