/**
 * The Playwright servers' packages of other versions come from the npm registry the user's npm config names
 * (~/.npmrc, npm_config_registry), installed once per major.minor; a registry that cannot be reached is a
 * clear `session not created`, leaving nothing half-installed. The registry is the tests' own, on loopback.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PlaywrightPackages } from '../../functions/servers/node/playwright/playwright-packages';
import { OLDER_PLAYWRIGHT } from '../../scripts/test-npm-packages';
import { type FakeNpmRegistry, startFakeNpmRegistry } from '../support/fake-npm-registry';
import { freePortBelowEphemeral } from '../support/processes';

const OLDER_MINOR = OLDER_PLAYWRIGHT.split('.').slice(0, 2).join('.');
let registry: FakeNpmRegistry;
const scratch: string[] = [];
const folder = (prefix: string) => {
  const made = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(made);
  return made;
};

beforeAll(async () => {
  registry = await startFakeNpmRegistry();
});
afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(async () => {
  await registry?.close();
  for (const made of scratch) rmSync(made, { recursive: true, force: true });
});

describe('Playwright versions installed on first use', { timeout: 120_000 }, () => {
  it("installs from the registry the user's ~/.npmrc names, once for two first uses at once", async () => {
    const home = folder('gg-pw-home-');
    writeFileSync(join(home, '.npmrc'), `registry=${registry.url}\n`);
    // The user's npm config file (npm and npx name it to their children in npm_config_userconfig, else it is
    // ~/.npmrc), and an empty npm cache, so the tarball too comes from the registry.
    vi.stubEnv('npm_config_userconfig', join(home, '.npmrc'));
    vi.stubEnv('npm_config_cache', join(home, '.npm'));
    vi.stubEnv('npm_config_registry', undefined);
    const asked = registry.requests.length;
    const packages = new PlaywrightPackages(folder('gg-pw-cache-'));
    const [first, second] = await Promise.all([packages.folderFor('1.64'), packages.folderFor('1.64.0')]);
    expect(second).toBe(first);
    expect(JSON.parse(readFileSync(join(first, 'package.json'), 'utf8')).version).toBe(OLDER_PLAYWRIGHT);
    const fromRegistry = registry.requests.slice(asked);
    expect(fromRegistry.filter((path) => path === '/playwright-core')).toHaveLength(1);
    expect(fromRegistry).toContain(`/playwright-core/-/playwright-core-${OLDER_PLAYWRIGHT}.tgz`);
  });

  it('refuses clearly, naming the version and the reason, when the registry cannot be reached', async () => {
    // A port nothing listens on, below the range other tests' listeners are handed.
    const unreachable = `http://127.0.0.1:${await freePortBelowEphemeral()}/`;
    vi.stubEnv('npm_config_registry', unreachable);
    // Without npm's retries (a minute of back-off by default): the outcome is the same, sooner.
    vi.stubEnv('npm_config_fetch_retries', '0');
    const cache = folder('gg-pw-cache-');
    const installing = new PlaywrightPackages(cache).folderFor(OLDER_MINOR);
    await expect(installing).rejects.toMatchObject({ code: 'session not created' });
    await expect(installing).rejects.toThrow(
      `cannot install Playwright ${OLDER_MINOR} from the npm registry: code ECONNREFUSED; FetchError: ` +
        `request to ${unreachable}playwright-core failed`,
    );
    // Nothing half-installed is left for a later first use to take as whole.
    expect(readdirSync(cache)).toEqual([]);
  });
});
