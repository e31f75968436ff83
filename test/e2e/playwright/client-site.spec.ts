// A Playwright Test spec run against gridgate by test/e2e/playwright-expose-network.test.ts: the page of a
// site that only the client's own machine serves (Playwright Test's webServer, on the client's loopback),
// reached by the grid's browser through the client's exposeNetwork tunnel; a screenshot attached.
import { expect, test } from '@playwright/test';

test("reaches the site on the client's loopback", async ({ page }, testInfo) => {
  await page.goto('/');
  await expect(page.locator('#served-by')).toHaveText('the client');
  const screenshot = await page.screenshot();
  await testInfo.attach('page', { body: screenshot, contentType: 'image/png' });
  expect(screenshot.length).toBeGreaterThan(1000);
});
