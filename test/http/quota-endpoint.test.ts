/** GET /quota: the caller's browsers, versions and pools, without any pool's URL or credentials. */
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeGrid, startFakeGrid } from '../support/fake-grid';

let grid: FakeGrid;
afterEach(() => grid?.close());

const CONFIG = {
  browsers: {
    chrome: {
      aliases: ['chromium'],
      defaultVersion: '156.0',
      versions: { '156.0': { pools: ['local', 'hub'] }, '155.0': { pools: ['hub'] } },
    },
    firefox: { versions: { '140.0': { pools: ['hub'] } } },
  },
  pools: {
    local: { kind: 'local', maxSessions: 2 },
    hub: {
      kind: 'hub',
      url: 'http://secret-hub.internal:4444/wd/hub',
      username: 'hub-user',
      password: 'hub-password',
      region: 'eu',
      weight: 3,
    },
  },
};

describe('GET /quota', () => {
  it('lists every browser, version and pool for a user without a rule', async () => {
    grid = startFakeGrid({ config: CONFIG });
    for (const path of ['/quota', '/wd/hub/quota']) {
      const response = await grid.app.request(path);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        value: {
          user: 'guest',
          browsers: [
            {
              name: 'chrome',
              aliases: ['chromium'],
              defaultVersion: '156.0',
              versions: [
                {
                  version: '156.0',
                  platformName: 'linux',
                  pools: [
                    { name: 'local', kind: 'local', weight: 1, maxSessions: 2 },
                    { name: 'hub', kind: 'hub', region: 'eu', weight: 3, maxSessions: 4 },
                  ],
                },
                {
                  version: '155.0',
                  platformName: 'linux',
                  pools: [{ name: 'hub', kind: 'hub', region: 'eu', weight: 3, maxSessions: 4 }],
                },
              ],
            },
            {
              name: 'firefox',
              aliases: [],
              versions: [
                {
                  version: '140.0',
                  platformName: 'linux',
                  pools: [{ name: 'hub', kind: 'hub', region: 'eu', weight: 3, maxSessions: 4 }],
                },
              ],
            },
          ],
        },
      });
    }
  });

  it('shows only what the user’s rule allows, and the user’s limit', async () => {
    grid = startFakeGrid({
      config: {
        ...CONFIG,
        users: { guest: { maxSessions: 1, browsers: { chrome: ['155'] }, pools: ['hub'] } },
      },
    });
    const { value } = (await (await grid.app.request('/quota')).json()) as {
      value: {
        maxSessions: number;
        browsers: { name: string; defaultVersion?: string; versions: { version: string }[] }[];
      };
    };
    expect(value.maxSessions).toBe(1);
    expect(value.browsers.map((b) => b.name)).toEqual(['chrome']);
    expect(value.browsers[0]?.versions.map((v) => v.version)).toEqual(['155.0']);
    expect(value.browsers[0]).not.toHaveProperty('defaultVersion');
  });

  it('never shows a hub’s URL, address or credentials', async () => {
    grid = startFakeGrid({ config: CONFIG });
    const text = await (await grid.app.request('/quota')).text();
    for (const secret of ['secret-hub', '4444', 'hub-user', 'hub-password', 'url', 'username', 'password']) {
      expect(text).not.toContain(secret);
    }
  });

  it('refuses other methods', async () => {
    grid = startFakeGrid({ config: CONFIG });
    expect((await grid.app.request('/quota', { method: 'POST' })).status).toBe(405);
  });
});
