// A small Playwright Test spec run against gridgate by test/e2e/playwright-test.test.ts: a form, and a
// screenshot attached to the report (its bytes cross the grid as one message well over 128 KB).
import { expect, test } from '@playwright/test';

const site = process.env.SITE_URL ?? 'http://localhost:3000';

test('greets the visitor by name', async ({ page }, testInfo) => {
  await page.goto(site);
  await page.fill('#name', 'Playwright Test');
  await page.click('#greet');
  await expect(page.locator('#result')).toHaveText('Hello, Playwright Test');
  const screenshot = await page.screenshot({ fullPage: true });
  await testInfo.attach('page', { body: screenshot, contentType: 'image/png' });
  expect(screenshot.length).toBeGreaterThan(1000);
});
