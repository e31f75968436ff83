// A Playwright client that connects to the endpoint in argv[2], opens the page in argv[3], says "ready" and
// holds on until it is killed: a test kills it mid-run, as a CI job is cancelled.
import { chromium } from 'playwright-core';

const browser = await chromium.connect(process.argv[2]);
const page = await browser.newPage();
await page.goto(process.argv[3]);
process.stdout.write('ready\n');
setInterval(() => {}, 60_000);
