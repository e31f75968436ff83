/**
 * What the socket-session tests do with each client on any pool: Puppeteer's `connect` and Playwright's
 * `chromium.connect` each open a page of the test site through the grid and read it, and what a session of
 * either may leave on this machine (a Playwright server, its folder) is found by name.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';

/** Puppeteer's connect with browserWSEndpoint: the page's title, read while `during` runs; then disconnects. */
export async function puppeteerVisit(
  endpoint: string,
  site: string,
  during = async () => {},
): Promise<string> {
  const browser = await puppeteer.connect({ browserWSEndpoint: endpoint });
  try {
    const page = await browser.newPage();
    await page.goto(site);
    const title = await page.title();
    await during();
    return title;
  } finally {
    await browser.disconnect();
  }
}

/**
 * Playwright's chromium.connect: the page's title and a PNG screenshot's size, read while `during` runs;
 * then closes.
 */
export async function playwrightVisit(
  endpoint: string,
  site: string,
  during = async () => {},
): Promise<{ title: string; screenshot: Buffer }> {
  const browser = await chromium.connect(endpoint);
  try {
    const page = await browser.newPage();
    await page.goto(site);
    const [title, screenshot] = [await page.title(), await page.screenshot({ type: 'png' })];
    await during();
    return { title, screenshot };
  } finally {
    await browser.close();
  }
}

/** The Playwright servers (and their bridges) running on this machine now. */
export function playwrightServers(): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('attach-server.cjs') || line.includes('devtools-pipe.cjs'));
}

/** The folders this process's Playwright servers of browsers elsewhere (hub, container, ecs) keep now. */
export function playwrightFolders(): string[] {
  return readdirSync(tmpdir()).filter((name) =>
    name.startsWith(`gridgate-session-${process.pid}-playwright-`),
  );
}
