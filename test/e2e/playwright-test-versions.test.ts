/**
 * End to end on a local pool: Playwright Test of two minor versions (1.65, the repository's, and 1.64, from
 * the npm registry into a cache of its own, as a user's second suite has it) at once against one grid, each
 * with the `connectOptions.wsEndpoint` config of docs/playwright.md, running a small spec with a screenshot.
 * Each connection is served by a Playwright server of its client's own version (Playwright refuses any other
 * with 428), both sessions open together; nothing is left running after.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { playwrightServers } from '../support/socket-session-clients';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { until } from '../support/until';

const run = promisify(execFile);
const OLDER = '1.64.1';
// Kept between runs: the registry is asked once per machine.
const OLDER_RUNNER = join(homedir(), '.cache', 'gridgate-test', `playwright-test-${OLDER}`);
const modules = join(import.meta.dirname, '..', '..', 'node_modules');

let grid: TestGrid;
let site: TestPageServer;
let cache: string;
let barrier: string;
const projects: string[] = [];

/** Playwright Test `version` from the npm registry, once, as a user's project installs it. */
async function olderRunner(): Promise<string> {
  const cli = join(OLDER_RUNNER, 'node_modules', '@playwright', 'test', 'cli.js');
  if (existsSync(cli)) return cli;
  mkdirSync(OLDER_RUNNER, { recursive: true });
  await run(
    'npm',
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--prefix',
      OLDER_RUNNER,
      `@playwright/test@${OLDER}`,
    ],
    { timeout: 300_000 },
  );
  return cli;
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
  [grid, site] = await Promise.all([startTestGrid({ playwrightCache: cache }), startTestPageServer()]);
}, 60_000);

afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  for (const folder of [cache, barrier, ...projects]) rmSync(folder, { recursive: true, force: true });
});

describe('Playwright Test of two minor versions at once', { timeout: 600_000 }, () => {
  it('runs a spec with a screenshot on 1.65 and 1.64 together, each a session of its own', async () => {
    const older = await olderRunner();
    // Each project where its own @playwright/test resolves: the repository's, and the older install's.
    const [current, previous] = [
      project(join(import.meta.dirname, 'playwright'), 'pt-1-65'),
      project(OLDER_RUNNER, 'pt-1-64'),
    ];
    const [ran165, ran164] = await Promise.all([
      runSuite(join(modules, '@playwright', 'test', 'cli.js'), current),
      runSuite(older, previous),
    ]);
    expect(ran165.stdout).toMatch(/1 passed/);
    expect(ran164.stdout).toMatch(/1 passed/);
    const created = grid.logger.lines.filter((line) => line.event === 'SESSION_CREATED');
    expect(created).toHaveLength(2);
    // 1.64's server was installed for it: the grid's own playwright-core is 1.65.
    expect(existsSync(join(cache, '1.64', 'node_modules', 'playwright-core', 'package.json'))).toBe(true);
    await until(() => grid.launcher.running().length === 0, 'both sessions ended with their runs');
    await until(() => playwrightServers(process.pid).length === 0, 'no Playwright server left');
  });
});
