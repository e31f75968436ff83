// The Playwright Test config of docs/playwright.md, as users copy it: every test's browser is a fresh one
// from gridgate. GRIDGATE_WS is where the test run's grid listens (ws://localhost:4444 for `npm start`).
import { defineConfig } from '@playwright/test';

const grid = process.env.GRIDGATE_WS ?? 'ws://localhost:4444';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  reporter: 'line',
  use: {
    connectOptions: { wsEndpoint: `${grid}/playwright/chromium?name=checkout-suite` },
  },
});
