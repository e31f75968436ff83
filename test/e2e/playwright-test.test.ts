/**
 * End to end: Playwright Test (@playwright/test 1.65) runs a small spec with the config docs/playwright.md
 * gives users (`connectOptions.wsEndpoint`), each test's browser a fresh session of the grid's, named on the
 * status page, and nothing left once the run is over.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useGridAndSite } from '../support/grid-fixture';
import { until } from '../support/until';

const run = promisify(execFile);
const env = useGridAndSite();

describe('Playwright Test through the front door', { timeout: 180_000 }, () => {
  it('runs a spec with a screenshot through connectOptions.wsEndpoint', async () => {
    const config = join(import.meta.dirname, 'playwright', 'playwright.config.ts');
    const { stdout } = await run(
      process.execPath,
      [join('node_modules', '@playwright', 'test', 'cli.js'), 'test', '--config', config],
      {
        env: { ...process.env, GRIDGATE_WS: env.grid.url.replace(/^http/, 'ws'), SITE_URL: env.site.url },
        timeout: 150_000,
      },
    );
    expect(stdout).toMatch(/1 passed/);
    const created = env.grid.logger.lines.filter((line) => line.event === 'SESSION_CREATED');
    expect(created).toHaveLength(1);
    await until(() => env.grid.launcher.running().length === 0, 'the session ended with the run');
  });
});
