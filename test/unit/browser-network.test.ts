import { describe, expect, it } from 'vitest';
import { addressAllowed, isHubOrigin } from '../../functions/core/browser-network';
import { parseConfig } from '../../functions/core/config';

const config = parseConfig(
  {
    browsers: { chrome: { versions: { '131': { pools: ['fargate'] } } } },
    pools: { fargate: { kind: 'ecs', networks: ['10.20.0.0/16', '192.168.7.0/24'] } },
  },
  { builtInBrowserVersion: 'stable' },
);
const fargate = config.pools.fargate as (typeof config.pools)[string];

describe('addressAllowed for ecs pools', () => {
  it.each(['10.20.0.1:4444', '10.20.255.254:4444', '192.168.7.9:4444'])(
    'allows %s, inside the networks',
    (address) => {
      expect(addressAllowed(fargate, address)).toBe(true);
    },
  );

  it.each([
    ['outside every network', '10.21.0.1:4444'],
    ['the metadata service', '169.254.169.254:80'],
    ['the right host on another port', '10.20.0.1:22'],
    ['loopback', '127.0.0.1:4444'],
    ['a host name', 'internal.example:4444'],
    ['a malformed IP', '10.20.0.300:4444'],
    ['an IP with no port', '10.20.0.1'],
  ])('refuses %s', (_, address) => {
    expect(addressAllowed(fargate, address)).toBe(false);
  });

  it('refuses every address when the pool names no networks', () => {
    const open = { ...fargate, networks: undefined };
    expect(addressAllowed(open, '10.20.0.1:4444')).toBe(false);
  });
});

describe('isHubOrigin', () => {
  const pools = parseConfig(
    {
      browsers: { chrome: { versions: { '131': { pools: ['hub', 'secure', 'local'] } } } },
      pools: {
        hub: { kind: 'hub', url: 'http://grid.internal:4444/wd/hub' },
        secure: { kind: 'hub', url: 'https://grid.example.com/wd/hub' },
        local: { kind: 'local' },
      },
    },
    { builtInBrowserVersion: '131' },
  ).pools;

  it.each([
    ['a hub, its base path aside', 'http://grid.internal:4444', true],
    ['an https hub on its default port', 'https://grid.example.com:443', true],
    ['the same host on another port', 'http://grid.internal:4445', false],
    ['a local browser', 'http://127.0.0.1:9515', false],
  ])('%s', (_, origin, expected) => {
    expect(isHubOrigin(pools, origin)).toBe(expected);
  });
});
