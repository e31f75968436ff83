// A small Playwright Test spec run by test/e2e/playwright-test-versions.test.ts with two Playwright Test
// versions at once: a page, a screenshot attached to the report, then a wait until the other version's run
// has got as far (a file each in BARRIER_DIR), so both runs' sessions are open on the grid together.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';

const site = process.env.SITE_URL ?? 'http://localhost:3000';
const barrier = process.env.BARRIER_DIR ?? '';

test('opens a page beside another Playwright version', async ({ page, browser }, testInfo) => {
  await page.goto(site);
  await expect(page).toHaveTitle('gridgate test page');
  const screenshot = await page.screenshot({ fullPage: true });
  await testInfo.attach('page', { body: screenshot, contentType: 'image/png' });
  expect(screenshot.subarray(1, 4).toString()).toBe('PNG');
  writeFileSync(join(barrier, browser.browserType().name() + process.pid), '');
  await expect
    .poll(() => (existsSync(barrier) ? readdirSync(barrier).length : 0), { timeout: 120_000 })
    .toBe(2);
});
