/**
 * What the socket-session tests do with each client on any pool: Puppeteer's `connect` and Playwright's
 * `chromium.connect` each open a page of the test site through the grid and read it, and what a session of
 * either may leave on this machine (a Playwright server, its folder) is found by its grid and its name.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { expect } from 'vitest';
import { SESSION_DIRECTORY_PREFIX } from '../../functions/adapters/fs/session-folder-names';
import { LAUNCHED_BY_ENV } from '../../functions/adapters/process/browser-environment';
import { PLAYWRIGHT_SERVER_SCRIPTS } from '../../functions/adapters/process/playwright-server-scripts';
import { descendantsOf, processesNow } from './processes';
import { eventually } from './until';
import { type ProbedVideo, probeVideo } from './video-probe';

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

/**
 * A Playwright client (test/e2e/playwright/hold-browser.mjs, a process of its own) that opens the page of
 * `site` through `endpoint` and is killed (SIGKILL) while it holds its browser, as a cancelled CI job is;
 * `during` runs while it holds it. Resolves once the client is gone: what it leaves is the caller's to look for.
 */
export async function killedMidRun(endpoint: string, site: string, during = async () => {}): Promise<void> {
  const script = join(import.meta.dirname, '..', 'e2e', 'playwright', 'hold-browser.mjs');
  const client = spawn(process.execPath, [script, endpoint, site], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(client, 'exit');
  try {
    await Promise.race([
      once(client.stdout, 'data'),
      exited.then(() => Promise.reject(new Error('the client ended before holding its browser'))),
    ]);
    await during();
  } finally {
    client.kill('SIGKILL');
    await exited;
  }
}

/**
 * A Playwright connection that asks `?enableVideo=true` (Moon's option) under the test name `name`: it opens
 * the site's page and changes it a few times, then closes; once the grid lists the recording under that name,
 * its video is fetched from the status page's API and probed.
 */
export async function recordedPlaywrightVisit(
  gridUrl: string,
  site: string,
  name: string,
): Promise<ProbedVideo> {
  const ws = gridUrl.replace(/^http/, 'ws');
  const browser = await chromium.connect(`${ws}/playwright/chromium?enableVideo=true&name=${name}`);
  const page = await browser.newPage();
  await page.goto(site);
  for (let step = 0; step < 20; step++) {
    await page.evaluate((n) => {
      document.body.textContent = `step ${n}`;
    }, step);
  }
  await browser.close();
  let key = '';
  await eventually(async () => {
    const list = (await (await fetch(`${gridUrl}/ui/api/recordings?q=${name}`)).json()) as {
      recordings: { key: string }[];
    };
    expect(list.recordings).toHaveLength(1);
    key = (list.recordings[0] as { key: string }).key;
  }, 60_000);
  let bytes = Buffer.alloc(0);
  await eventually(async () => {
    const answer = await fetch(`${gridUrl}/ui/api/recordings/${key}/video`);
    expect(answer.status).toBe(200);
    bytes = Buffer.from(await answer.arrayBuffer());
  }, 60_000);
  const scratch = mkdtempSync(join(tmpdir(), 'gg-socket-video-'));
  try {
    const path = join(scratch, 'recorded.mp4');
    writeFileSync(path, bytes);
    return await probeVideo(path);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The Playwright servers (and their bridges) that the grid running as process `grid` started and that run now,
 * as "pid args" lines: processes running attach-server.cjs or devtools-pipe.cjs that descend from the grid or
 * that gridgate marked as the grid's, which a server re-parented to PID 1 by a killed grid still is. Only the
 * grid's own, so the servers of a grid another test file runs at the same time (vitest runs two at once) never
 * count.
 */
export function playwrightServers(grid: number): string[] {
  const descendants = new Set(descendantsOf(grid).map(({ pid }) => pid));
  return processesNow()
    .filter(({ args }) => PLAYWRIGHT_SERVER_SCRIPTS.some((script) => args.includes(script)))
    .filter(({ pid }) => descendants.has(pid) || markedAsGrids(pid, grid))
    .map(({ pid, args }) => `${pid} ${args}`);
}

/**
 * Whether gridgate marked the process as the grid's: its working folder is a session folder named after the
 * grid (session-folder-names.ts: a server's and so its bridge's), or its environment carries the grid's pid as
 * the launched-by mark (browser-environment.ts: a server's, when the grid serves sockets itself).
 */
function markedAsGrids(pid: number, grid: number): boolean {
  try {
    if (basename(readlinkSync(`/proc/${pid}/cwd`)).startsWith(`${SESSION_DIRECTORY_PREFIX}${grid}-`))
      return true;
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${LAUNCHED_BY_ENV}=${grid}`);
  } catch {
    return false; // gone meanwhile, or another user's
  }
}

/** The folders this process's Playwright servers of browsers elsewhere (hub, container, ecs) keep now. */
export function playwrightFolders(): string[] {
  return readdirSync(tmpdir()).filter((name) =>
    name.startsWith(`gridgate-session-${process.pid}-playwright-`),
  );
}
