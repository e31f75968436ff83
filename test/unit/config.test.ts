import { describe, expect, it } from 'vitest';
import { ConfigError, configJsonSchema, parseConfig } from '../../functions/core/config';

const DEFAULTS = { builtInBrowserVersion: '156.0.7000.1' };

function problems(input: unknown): string[] {
  try {
    parseConfig(input, DEFAULTS, 'grid.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('grid.json is not a valid gridgate config');
    return (error as ConfigError).problems;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

const CATALOG = {
  browsers: { chrome: { versions: { '156.0': { pools: ['local'] } } } },
  pools: { local: { kind: 'local' } },
};

describe('parseConfig defaults', () => {
  it.each([
    ['no file', undefined],
    ['null', null],
    ['an empty object', {}],
  ])('serves one local Chromium pool as guest on port 4444 of loopback only for %s', (_, input) => {
    const config = parseConfig(input, DEFAULTS);
    expect(config).toMatchObject({
      port: 4444,
      host: '127.0.0.1',
      guest: 'guest',
      users: {},
      defaultBrowser: 'chrome',
      timeouts: { newSession: 60_000, idle: 300_000, maxAge: 3_600_000, queue: 60_000 },
      limits: { maxBodySize: 64 * 1024 ** 2, maxUploadSize: 256 * 1024 ** 2 },
    });
    expect(config.pools).toEqual({
      local: {
        name: 'local',
        kind: 'local',
        weight: 1,
        maxSessions: 4,
        chromedriver: '/usr/bin/chromedriver',
        chromium: '/usr/bin/chromium',
        headless: true,
        args: [],
      },
    });
    expect(config.browsers).toEqual({
      chrome: {
        aliases: ['chromium'],
        defaultVersion: '156.0.7000.1',
        versions: { '156.0.7000.1': { platformName: 'linux', pools: ['local'] } },
      },
    });
  });

  it('gives new sessions 3 minutes by default when a pool starts browsers cold on AWS, and 60 s otherwise', () => {
    const withPool = (pool: Record<string, unknown>, timeouts?: Record<string, string>) =>
      parseConfig(
        {
          browsers: { chrome: { defaultVersion: '1', versions: { '1': { pools: ['p'] } } } },
          pools: { p: pool },
          ...(timeouts ? { timeouts } : {}),
        },
        DEFAULTS,
      ).timeouts.newSession;
    // A Fargate task or an EKS pod pulls its image for every session: 30-60 s and more.
    expect(withPool({ kind: 'ecs' })).toBe(180_000);
    expect(withPool({ kind: 'eks', cluster: 'c' })).toBe(180_000);
    expect(withPool({ kind: 'hub', url: 'http://10.0.0.1:4444/wd/hub' })).toBe(60_000);
    // What a config sets holds, whatever the pools.
    expect(withPool({ kind: 'ecs' }, { newSession: '90s' })).toBe(90_000);
  });

  it('uses a configured catalog instead of the built-in one, with no default browser', () => {
    const config = parseConfig(CATALOG, DEFAULTS);
    expect(Object.keys(config.browsers)).toEqual(['chrome']);
    expect(config.browsers.chrome?.aliases).toEqual([]);
    expect(config.defaultBrowser).toBeUndefined();
  });

  it('names every pool after its key', () => {
    const config = parseConfig(
      { ...CATALOG, pools: { local: { kind: 'local' }, spare: { kind: 'local', weight: 2 } } },
      DEFAULTS,
    );
    expect(config.pools.spare).toMatchObject({ name: 'spare', weight: 2 });
  });

  it('reads durations and sizes as people write them', () => {
    const config = parseConfig(
      {
        timeouts: { newSession: '2m', idle: '90s', maxAge: '1h30m', queue: '0s', request: '45s' },
        limits: { maxBodySize: '512KB' },
      },
      DEFAULTS,
    );
    expect(config.timeouts).toEqual({
      newSession: 120_000,
      idle: 90_000,
      maxAge: 5_400_000,
      queue: 0,
      request: 45_000,
    });
    expect(config.limits.maxBodySize).toBe(512 * 1024);
  });

  it.each([
    ['1KB', 1024],
    ['1kb', 1024],
    ['2 MB', 2 * 1024 ** 2],
    ['1GB', 1024 ** 3],
    ['100B', 100],
    [4096, 4096],
  ])('reads the size %j as %i bytes', (size, bytes) => {
    expect(parseConfig({ limits: { maxBodySize: size } }, DEFAULTS).limits.maxBodySize).toBe(bytes);
  });

  it('turns guest access off with null', () => {
    expect(parseConfig({ guest: null }, DEFAULTS).guest).toBeNull();
  });

  it('takes an optional usersFile path, and refuses an empty one', () => {
    expect(parseConfig({}, DEFAULTS).usersFile).toBeUndefined();
    expect(parseConfig({ usersFile: 'users.htpasswd' }, DEFAULTS).usersFile).toBe('users.htpasswd');
    expect(() => parseConfig({ usersFile: '' }, DEFAULTS)).toThrow(/usersFile: /);
  });
});

describe('parseConfig errors', () => {
  it.each([
    [{ port: 'x' }, 'port'],
    [{ port: 70000 }, 'port'],
    [{ publicUrl: 'not a url' }, 'publicUrl'],
    [{ timeouts: { idle: '5 minutes' } }, 'timeouts.idle'],
    [{ timeouts: { maxAge: 3600 } }, 'timeouts.maxAge'],
    [{ timeouts: { request: '500ms' } }, 'timeouts.request'],
    [{ timeouts: { request: '0s' } }, 'timeouts.request'],
    [{ limits: { maxBodySize: '64 megabytes' } }, 'limits.maxBodySize'],
    [{ limits: { maxBodySize: -1 } }, 'limits.maxBodySize'],
    [{ ...CATALOG, pools: { local: { kind: 'local', maxSessions: 0 } } }, 'pools.local.maxSessions'],
    [{ ...CATALOG, pools: { local: { kind: 'local', weight: -1 } } }, 'pools.local.weight'],
    [{ ...CATALOG, pools: { local: { kind: 'local', color: 'Blue' } } }, 'pools.local.color'],
    [{ ...CATALOG, pools: { local: { kind: 'mainframe' } } }, 'pools.local.kind'],
    [{ ...CATALOG, pools: { local: { kind: 'local' }, 'bad name!': { kind: 'local' } } }, 'pools.bad name!'],
    [{ users: { alice: { maxSessions: 1.5 } } }, 'users.alice.maxSessions'],
  ])('names the path of a bad value (%j)', (input, path) => {
    const found = problems(input);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(new RegExp(`^${path.replace(/[.!]/g, '\\$&')}: `));
  });

  it('rejects an unknown top-level key, naming it', () => {
    expect(problems({ colour: 'blue' })).toEqual([expect.stringMatching(/^\(top level\): .*"colour"/)]);
  });

  it.each([
    [{ timeouts: { idel: '5m' } }, 'timeouts', 'idel'],
    [{ limits: { maxBodysize: 1 } }, 'limits', 'maxBodysize'],
    [{ users: { alice: { quota: 1 } } }, 'users.alice', 'quota'],
    [{ ...CATALOG, pools: { local: { kind: 'local', image: 'x' } } }, 'pools.local', 'image'],
    [
      { ...CATALOG, browsers: { chrome: { versions: { '156.0': { pools: ['local'], arch: 'arm' } } } } },
      'browsers.chrome.versions.156.0',
      'arch',
    ],
  ])('rejects an unknown nested key (%j) at its path', (input, path, key) => {
    const found = problems(input);
    expect(found).toHaveLength(1);
    expect(found[0]?.startsWith(`${path}: `)).toBe(true);
    expect(found[0]).toContain(key);
  });

  it('rejects a version served by a pool that does not exist', () => {
    expect(
      problems({ ...CATALOG, browsers: { chrome: { versions: { '156.0': { pools: ['local', 'nope'] } } } } }),
    ).toEqual(['browsers.chrome.versions.156.0.pools.1: no pool named "nope"']);
  });

  it('rejects browsers without pools and pools without browsers', () => {
    expect(problems({ browsers: CATALOG.browsers })).toContain('pools: browsers and pools go together');
    expect(problems({ pools: CATALOG.pools })).toEqual(['browsers: browsers and pools go together']);
  });

  it('rejects a browser with no versions', () => {
    expect(problems({ ...CATALOG, browsers: { chrome: { versions: {} } } })).toEqual([
      'browsers.chrome.versions: needs at least one version',
    ]);
  });

  it('rejects a default version that is not one of the versions', () => {
    expect(
      problems({
        ...CATALOG,
        browsers: { chrome: { defaultVersion: '140', versions: { '156.0': { pools: ['local'] } } } },
      }),
    ).toEqual(['browsers.chrome.defaultVersion: "140" is not one of the versions']);
  });

  it('rejects a default browser that is not in the catalog', () => {
    expect(problems({ ...CATALOG, defaultBrowser: 'firefox' })).toEqual([
      'defaultBrowser: no browser named "firefox"',
    ]);
  });

  it('reports every problem at once, type errors and broken references together', () => {
    const found = problems({
      port: 'x',
      colour: 'blue',
      timeouts: { idle: 'soon' },
      defaultBrowser: 'firefox',
      browsers: { chrome: { defaultVersion: '1', versions: { '156.0': { pools: ['nope'] } } } },
      pools: { local: { kind: 'local', maxSessions: 0 } },
    });
    expect(found.map((problem) => problem.split(':')[0])).toEqual(
      expect.arrayContaining([
        'port',
        '(top level)',
        'timeouts.idle',
        'defaultBrowser',
        'browsers.chrome.defaultVersion',
        'browsers.chrome.versions.156.0.pools.0',
        'pools.local.maxSessions',
      ]),
    );
    expect(found).toHaveLength(7);
  });

  it.each([
    ['a browser that is null', { ...CATALOG, browsers: { chrome: null } }],
    ['versions that are a string', { ...CATALOG, browsers: { chrome: { versions: 'latest' } } }],
    ['a version that is null', { ...CATALOG, browsers: { chrome: { versions: { '156.0': null } } } }],
    [
      'a version whose pools are a string',
      { ...CATALOG, browsers: { chrome: { versions: { '156.0': { pools: 'local' } } } } },
    ],
    ['browsers that are a list', { ...CATALOG, browsers: [] }],
    ['a top level that is a list', []],
    ['a top level that is a number', 42],
  ])('reports %s as a config problem, not a crash', (_, input) => {
    expect(problems(input).length).toBeGreaterThan(0);
  });
});

describe('configJsonSchema', () => {
  it('describes the config file and rejects unknown keys like the parser does', () => {
    const schema = configJsonSchema() as {
      type: string;
      properties: Record<string, unknown>;
      additionalProperties: unknown;
    };
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['port', 'browsers', 'pools', 'timeouts', 'limits', 'guest', 'users']),
    );
    expect(schema.additionalProperties).toBe(false);
  });
});

describe('parseConfig ecs pools and the store', () => {
  const ecsCatalog = (pool: Record<string, unknown>) => ({
    browsers: { chrome: { versions: { '131': { pools: ['fargate'] } } } },
    pools: { fargate: { kind: 'ecs', ...pool } },
  });

  it('fills an ecs pool with Spot first, port 4444, container "browser", 1 vCPU and 2 GB', () => {
    const config = parseConfig(ecsCatalog({ cluster: 'grid' }), DEFAULTS);
    expect(config.pools.fargate).toMatchObject({
      kind: 'ecs',
      name: 'fargate',
      cluster: 'grid',
      spot: true,
      port: 4444,
      containerName: 'browser',
      cpu: 1024,
      memory: 2048,
      architecture: 'x86_64',
      assignPublicIp: false,
    });
  });

  it('refuses Spot for an arm64 pool, since Fargate Spot runs x86_64 only', () => {
    expect(problems(ecsCatalog({ architecture: 'arm64' }))).toEqual([
      'pools.fargate.spot: Fargate Spot runs x86_64 only: set "spot": false for an arm64 pool',
    ]);
    expect(() => parseConfig(ecsCatalog({ architecture: 'arm64', spot: false }), DEFAULTS)).not.toThrow();
  });

  it('names a network that is not a CIDR block', () => {
    expect(problems(ecsCatalog({ networks: ['10.0.0.0'] }))).toEqual([
      'pools.fargate.networks.0: must be an IPv4 CIDR block such as "10.0.0.0/16"',
    ]);
  });

  it('keeps sessions in memory unless a DynamoDB table is named', () => {
    expect(parseConfig({}, DEFAULTS).store).toEqual({ kind: 'memory' });
    expect(parseConfig({ store: { kind: 'dynamodb', table: 'gridgate' } }, DEFAULTS).store).toEqual({
      kind: 'dynamodb',
      table: 'gridgate',
    });
    expect(problems({ store: { kind: 'dynamodb' } })).toEqual([
      'store.table: Invalid input: expected string, received undefined',
    ]);
  });
});

describe('parseConfig environment colours', () => {
  const colouredCatalog = (pool: Record<string, unknown>, colors?: Record<string, unknown>) => ({
    ...CATALOG,
    pools: { local: { kind: 'local', ...pool } },
    ...(colors ? { colors } : {}),
  });

  it('reads colours from X-Grid-Color, no base domains, the usual reserved names, strict isolation', () => {
    expect(parseConfig({}, DEFAULTS).colors).toEqual({
      header: 'X-Grid-Color',
      baseDomains: [],
      reserved: ['test', 'regression', 'online', 'dev', 'release', 'pressure'],
      isolation: 'strict',
    });
  });

  it('takes a team’s own header, base domains, reserved names and loose isolation', () => {
    const colors = {
      header: 'X-YX-COLOR',
      baseDomains: ['grid.example.com', 'feature.example.org'],
      reserved: ['prod'],
      isolation: 'loose',
    };
    expect(parseConfig(colouredCatalog({}, colors), DEFAULTS).colors).toEqual(colors);
  });

  it('keeps a pool’s colour and colour header as written, and sets no colour header by default', () => {
    const config = parseConfig(colouredCatalog({ color: 'green', colorHeader: 'X-Env' }), DEFAULTS);
    expect(config.pools.local).toMatchObject({ color: 'green', colorHeader: 'X-Env' });
    expect(parseConfig(CATALOG, DEFAULTS).pools.local?.colorHeader).toBeUndefined();
    expect(parseConfig(colouredCatalog({ colorHeader: true }), DEFAULTS).pools.local?.colorHeader).toBe(true);
  });

  it.each([
    [{ colors: { header: 'X Grid' } }, 'colors.header: must be an HTTP header name such as "X-Grid-Color"'],
    [
      { colors: { baseDomains: ['*.grid.example.com'] } },
      'colors.baseDomains.0: must be a lower-case domain name such as "grid.example.com"',
    ],
    [
      { colors: { baseDomains: ['Grid.Example.com'] } },
      'colors.baseDomains.0: must be a lower-case domain name such as "grid.example.com"',
    ],
    [
      { colors: { isolation: 'mixed' } },
      'colors.isolation: Invalid option: expected one of "strict"|"loose"',
    ],
    [{ colors: { reserved: 'test' } }, 'colors.reserved: Invalid input: expected array, received string'],
    [{ colors: { colour: 'green' } }, 'colors: Unrecognized key: "colour"'],
  ])('names the colours key that is wrong: %j', (input, problem) => {
    expect(problems(input)).toEqual([problem]);
  });

  it.each([
    [{ colorHeader: 'X Env' }, 'pools.local.colorHeader: must be an HTTP header name such as "X-Grid-Color"'],
    [{ colorHeader: 1 }, 'pools.local.colorHeader: must be true, false or an HTTP header name'],
    [{ color: 'Green' }, 'pools.local.color: must be 1–63 lower-case letters, digits or "-"'],
    [{ color: 'test' }, 'pools.local.color: "test" is a reserved name (colors.reserved), not a colour'],
  ])('names the pool key that is wrong: %j', (pool, problem) => {
    expect(problems(colouredCatalog(pool))).toEqual([problem]);
  });

  it('checks pool colours against the configured reserved names, not the defaults', () => {
    expect(
      parseConfig(colouredCatalog({ color: 'test' }, { reserved: ['prod'] }), DEFAULTS).pools.local?.color,
    ).toBe('test');
    expect(problems(colouredCatalog({ color: 'prod' }, { reserved: ['prod'] }))).toEqual([
      'pools.local.color: "prod" is a reserved name (colors.reserved), not a colour',
    ]);
  });
});
