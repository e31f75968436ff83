import { describe, expect, it } from 'vitest';
import { addressAllowed, upstreamEndpoint } from '../../../functions/core/browser-network';
import { type HubPoolConfig, parseConfig } from '../../../functions/core/config';
import { SessionTokens } from '../../../functions/core/session-token';
import { hubAddress } from '../../../functions/pools/hub/hub-endpoint';
import { HubLauncher, hubCapabilities } from '../../../functions/pools/hub/hub-launcher';

function hubPool(extra: Record<string, unknown>): HubPoolConfig {
  const config = parseConfig(
    {
      browsers: { chrome: { versions: { '1': { pools: ['hub'] } } } },
      pools: { hub: { kind: 'hub', ...extra } },
    },
    { builtInBrowserVersion: 'unused' },
  );
  return config.pools.hub as HubPoolConfig;
}

describe('HubLauncher', () => {
  it('starts nothing and points at the hub', async () => {
    const pool = hubPool({ url: 'https://grid.example.com/wd/hub' });
    const launched = await new HubLauncher().start({
      pool,
      key: 'k1',
      user: 'guest',
      idleTimeoutMs: 300_000,
      inUseMs: 3_660_000,
      capabilities: { browserName: 'chrome', browserVersion: '1' },
      browserVersion: '1.0',
      signal: new AbortController().signal,
    });
    expect(launched).toEqual({
      address: 'grid.example.com:443',
      handle: '',
      capabilities: { browserName: 'chrome', browserVersion: '1.0', 'gridgate:creation': 'k1' },
    });
    await expect(
      new HubLauncher().stop('', { key: 'k', pool, reason: 'deleted', upstreamId: '' }),
    ).resolves.toBeUndefined();
  });

  it("asks under the session's key, whatever key the client gave", async () => {
    const launched = await new HubLauncher().start({
      pool: hubPool({ url: 'http://127.0.0.1:4444' }),
      key: 'k2',
      user: 'guest',
      idleTimeoutMs: 300_000,
      inUseMs: 3_660_000,
      capabilities: { browserName: 'chrome', 'gridgate:creation': 'someone-elses-key' },
      signal: new AbortController().signal,
    });
    expect(launched.capabilities['gridgate:creation']).toBe('k2');
  });

  it('never asks for an empty version', () => {
    expect(hubCapabilities({ browserName: 'chrome', browserVersion: '' }, '')).toEqual({
      browserName: 'chrome',
    });
    expect(hubCapabilities({ browserName: 'chrome', browserVersion: 'latest' }, '')).toEqual({
      browserName: 'chrome',
    });
  });
});

describe('hub endpoints', () => {
  it('reaches a hub at its origin and base path with its own Basic credentials', () => {
    const pool = hubPool({ url: 'http://hub:4444/wd/hub/', username: 'u', password: 'p:w' });
    expect(upstreamEndpoint(pool, 'hub:4444')).toEqual({
      origin: 'http://hub:4444',
      basePath: '/wd/hub',
      authorization: `Basic ${Buffer.from('u:p:w').toString('base64')}`,
    });
  });

  it('fills in the default port', () => {
    expect(hubAddress('http://hub/')).toBe('hub:80');
    expect(hubAddress('https://hub')).toBe('hub:443');
  });

  it('allows a hub pool’s sessions only at the hub itself', () => {
    const pool = hubPool({ url: 'http://hub:4444/wd/hub' });
    expect(addressAllowed(pool, 'hub:4444')).toBe(true);
    expect(addressAllowed(pool, 'hub:4445')).toBe(false);
    expect(addressAllowed(pool, '127.0.0.1:4444')).toBe(false);
  });

  it('refuses a hub URL that is not http or https', () => {
    expect(() => hubPool({ url: 'file:///etc/passwd' })).toThrow(/pools.hub.url/);
  });
});

describe('session IDs for hub sessions', () => {
  it('stay within 160 characters for a hub with a realistic name and a Grid 4 session ID', () => {
    const tokens = new SessionTokens(Buffer.alloc(32, 7));
    const token = tokens.sign(
      {
        key: '0123456789abcdef',
        pool: 'selenium-eu-west-1',
        address: hubAddress('https://selenium-hub.eu-west-1.example.com/wd/hub'),
        upstreamId: '6e72e60aad2354b424fec0b58271b018',
        handle: '',
        devtools: '',
        createdAt: Date.UTC(2026, 0, 1),
        maxAgeMs: 3_600_000,
      },
      'alice',
    );
    expect(token.length).toBeLessThanOrEqual(160);
  });
});
