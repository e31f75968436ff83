/**
 * docs/playwright.md, done as it says on real Chromium: its Playwright Test config runs a small spec
 * (greeting.spec.ts: a form, a full-page screenshot) with @playwright/test 1.65, and its Playwright `connect`
 * and Puppeteer examples run unmodified but for the grid's and the site's addresses. Each is a session of the
 * grid's, named as the example names it, and nothing is left running after.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { useGridAndSite } from '../support/grid-fixture';
import { until } from '../support/until';

const run = promisify(execFile);
const page = readFileSync(new URL('../../docs/playwright.md', import.meta.url), 'utf8');
const blocks = (language: string) =>
  [...page.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] as string);
const [configBlock] = blocks('ts') as [string];
const [connectBlock, puppeteerBlock] = blocks('js') as [string, string];

// Inside the repository, so the examples' imports resolve as in a user's project; not in node_modules, whose
// files Playwright Test does not compile.
const modules = join(import.meta.dirname, '..', '..', 'node_modules');
const scratch = mkdtempSync(join(import.meta.dirname, 'playwright', '.docs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const env = useGridAndSite();
const local = (text: string) =>
  text
    .replaceAll('ws://localhost:4444', env.grid.url.replace(/^http/, 'ws'))
    .replaceAll('https://example.com/', `${env.site.url}/`);

/** The names of the sessions the grid created, in order. */
const createdNames = () =>
  env.grid.logger.lines.filter((line) => line.event === 'SESSION_CREATED').map((line) => line.fields.session);

async function runExample(name: string, code: string): Promise<string> {
  const file = join(scratch, name);
  writeFileSync(file, local(code));
  const { stdout } = await run(process.execPath, [file], { timeout: 120_000 });
  return stdout;
}

describe('docs/playwright.md', { timeout: 180_000 }, () => {
  it('runs a Playwright Test spec with the config users copy', async () => {
    writeFileSync(join(scratch, 'playwright.config.ts'), local(configBlock));
    copyFileSync(
      join(import.meta.dirname, 'playwright', 'greeting.spec.ts'),
      join(scratch, 'greeting.spec.ts'),
    );
    const before = createdNames().length;
    const { stdout } = await run(
      process.execPath,
      [
        join(modules, '@playwright', 'test', 'cli.js'),
        'test',
        '--config',
        join(scratch, 'playwright.config.ts'),
        '--output',
        join(scratch, 'results'),
      ],
      { cwd: scratch, env: { ...process.env, SITE_URL: env.site.url }, timeout: 150_000 },
    );
    expect(stdout).toMatch(/1 passed/);
    expect(createdNames().length - before).toBe(1);
    await until(() => env.grid.launcher.running().length === 0, 'the session ended with the run');
  });

  it('runs the Playwright connect example', async () => {
    expect(await runExample('connect.mjs', connectBlock)).toBe('gridgate test page\n');
    await until(() => env.grid.launcher.running().length === 0, 'the session ended');
  });

  it('runs the Puppeteer example', async () => {
    expect(await runExample('puppeteer.mjs', puppeteerBlock)).toBe('gridgate test page\n');
    await until(() => env.grid.launcher.running().length === 0, 'the session ended');
  });
});
