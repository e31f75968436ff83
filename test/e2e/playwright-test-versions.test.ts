/**
 * End to end on a local pool: Playwright Test of two minor versions (1.65, the repository's, and 1.64, installed
 * from an npm registry into a folder of its own, as a user's second suite has it) at once against one grid, each
 * with the `connectOptions.wsEndpoint` config of docs/playwright.md, running a small spec with a screenshot.
 * Each connection is served by a Playwright server of its client's own version (Playwright refuses any other
 * with 428), the grid installing 1.64's from the npm registry its npm config names; both sessions open
 * together; nothing is left running after. The registry is the tests' own, on loopback.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OLDER_PLAYWRIGHT } from '../../scripts/test-npm-packages';
import { type FakeNpmRegistry, startFakeNpmRegistry } from '../support/fake-npm-registry';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { type GuardedChildren, guardChildren } from '../support/guarded-children';
import { playwrightServers } from '../support/socket-session-clients';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { until } from '../support/until';

const run = promisify(execFile);
const modules = join(import.meta.dirname, '..', '..', 'node_modules');

let grid: TestGrid;
let site: TestPageServer;
let registry: FakeNpmRegistry;
let guard: GuardedChildren;
let cache: string;
let barrier: string;
let olderInstall: string;
const projects: string[] = [];

/** Playwright Test of the older version, installed from the registry as a user's project installs it. */
async function olderRunner(): Promise<string> {
  await run(
    'npm',
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--prefix',
      olderInstall,
      `@playwright/test@${OLDER_PLAYWRIGHT}`,
    ],
    { timeout: 300_000 },
  );
  return join(olderInstall, 'node_modules', '@playwright', 'test', 'cli.js');
}

/** A project folder with the docs' config (the grid's address, a test name) and the spec, under `root`. */
function project(root: string, name: string): string {
  const folder = mkdtempSync(join(root, '.versions-'));
  projects.push(folder);
  const endpoint = `${grid.url.replace(/^http/, 'ws')}/playwright/chromium?name=${name}`;
  writeFileSync(
    join(folder, 'playwright.config.ts'),
    [
      "import { defineConfig } from '@playwright/test';",
      '',
      'export default defineConfig({',
      `  use: { connectOptions: { wsEndpoint: '${endpoint}' } },`,
      '});',
      '',
    ].join('\n'),
  );
  copyFileSync(join(import.meta.dirname, 'playwright', 'together.spec.ts'), join(folder, 'together.spec.ts'));
  return folder;
}

function runSuite(cli: string, folder: string) {
  return run(
    process.execPath,
    [cli, 'test', '--config', join(folder, 'playwright.config.ts'), '--output', join(folder, 'results')],
    {
      cwd: folder,
      env: { ...process.env, SITE_URL: site.url, BARRIER_DIR: barrier },
      timeout: 240_000,
    },
  );
}

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'gg-pw-versions-'));
  barrier = mkdtempSync(join(tmpdir(), 'gg-pw-barrier-'));
  olderInstall = mkdtempSync(join(tmpdir(), 'gg-pw-older-'));
  registry = await startFakeNpmRegistry();
  // The npm setting users have: the grid's installs and the older suite's own install both go there.
  vi.stubEnv('npm_config_registry', registry.url);
  guard = guardChildren();
  [grid, site] = await Promise.all([startTestGrid({ playwrightCache: cache }), startTestPageServer()]);
}, 60_000);

afterAll(async () => {
  await Promise.all([grid?.close(), site?.close(), registry?.close()]);
  vi.unstubAllEnvs();
  guard?.close();
  for (const folder of [cache, barrier, olderInstall, ...projects])
    rmSync(folder, { recursive: true, force: true });
});

describe('Playwright Test of two minor versions at once', { timeout: 600_000 }, () => {
  it('runs a spec with a screenshot on 1.65 and 1.64 together, each a session of its own', async () => {
    const older = await olderRunner();
    // Each project where its own @playwright/test resolves: the repository's, and the older install's.
    const [current, previous] = [
      project(join(import.meta.dirname, 'playwright'), 'pt-1-65'),
      project(olderInstall, 'pt-1-64'),
    ];
    const [ran165, ran164] = await Promise.all([
      runSuite(join(modules, '@playwright', 'test', 'cli.js'), current),
      runSuite(older, previous),
    ]);
    expect(ran165.stdout).toMatch(/1 passed/);
    expect(ran164.stdout).toMatch(/1 passed/);
    const created = grid.logger.lines.filter((line) => line.event === 'SESSION_CREATED');
    expect(created).toHaveLength(2);
    // 1.64's server was installed for it, from the registry npm is set to: the grid's own playwright-core is 1.65.
    expect(existsSync(join(cache, '1.64', 'node_modules', 'playwright-core', 'package.json'))).toBe(true);
    expect(registry.requests).toContain('/playwright-core');
    await until(() => grid.launcher.running().length === 0, 'both sessions ended with their runs');
    await until(() => playwrightServers(process.pid).length === 0, 'no Playwright server left');
  });
});
