/**
 * End to end on real podman, both test images: the grid captures a container session's console and network
 * traffic over its own DevTools connection, through the container's DevTools door, as it does a local
 * session's. A page that fetches two things and writes a console.error yields a HAR that the HAR 1.2 schema
 * (har-validator) accepts, holding both requests with their status and timings, and a console log holding the
 * error; both are served to their owner and are the same 404 as a session that does not exist to another user.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as harValidator from 'har-validator';
import { Builder, until } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestImages } from '../../../../scripts/test-images';
import {
  containerImages,
  containersOfPool,
  HOST_LOOPBACK_FROM_PAGES,
  removeContainersOfPool,
  startContainerGrid,
  uniquePoolName,
} from '../../../support/container-grid';
import type { TestGrid } from '../../../support/grid-fixture';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';

const TEST_MS = 180_000;
const WAIT_MS = 60_000;
const ALICE = { authorization: `Basic ${Buffer.from('alice:alice-pw').toString('base64')}` };

let images: TestImages;
let site: TestPageServer;
const scratch = mkdtempSync(join(tmpdir(), 'gridgate-container-capture-'));
const usersFile = join(scratch, 'users.htpasswd');
const pools: string[] = [];
const grids: TestGrid[] = [];

beforeAll(async () => {
  const sha = (password: string) => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
  writeFileSync(usersFile, `alice:${sha('alice-pw')}\n`);
  [images, site] = await Promise.all([containerImages(), startTestPageServer()]);
}, 900_000);

afterAll(async () => {
  await Promise.all(grids.map((grid) => grid.close()));
  for (const pool of pools) removeContainersOfPool(pool);
  await site?.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface HarEntry {
  request: { method: string; url: string };
  response: { status: number };
  time: number;
  timings: { send: number; wait: number; receive: number };
}

describe.each([
  ['chromedriver', (i: TestImages) => i.chromedriver],
  ['standalone-chromium', (i: TestImages) => i.standaloneChromium],
])('console and network capture of a container session (%s image)', (name, imageOf) => {
  it('serves a valid HAR and the console log to the session’s owner only', { timeout: TEST_MS }, async () => {
    const pool = uniquePoolName(`capture-${name}`);
    pools.push(pool);
    const grid = await startContainerGrid(
      pool,
      { image: imageOf(images), hostLoopback: true },
      // Guests are let in (the client below signs in as nobody); alice is the other user.
      { usersFile, recording: { directory: join(scratch, pool) } },
    );
    grids.push(grid);
    const options = new ChromeOptions();
    options.set('gridgate:options', { console: true, network: true });
    const driver = await new Builder()
      .usingServer(grid.url)
      .forBrowser('chrome')
      .setChromeOptions(options)
      .build();
    const page = `${site.url.replace('127.0.0.1', HOST_LOOPBACK_FROM_PAGES)}`;
    let id: string;
    try {
      await driver.get(`${page}/console-and-fetches`);
      await driver.wait(until.titleIs('fetched'), WAIT_MS);
      id = (await driver.getSession()).getId();
    } finally {
      await driver.quit();
    }
    expect(containersOfPool(pool)).toEqual([]);

    // The DELETE is answered once the container went and its captures were kept.
    const har = await fetch(`${grid.url}/har/${id}.har`);
    expect(har.status).toBe(200);
    const archive = (await har.json()) as { log: { version: string; entries: HarEntry[] } };
    await expect(harValidator.har(archive)).resolves.toBeDefined();
    for (const [path, status] of [
      ['/console-and-fetches', 200],
      ['/second', 200],
      ['/missing.json', 404],
    ] as const) {
      const found = archive.log.entries.find((one) => one.request.url === `${page}${path}`);
      expect(found, `${path} in the HAR`).toBeDefined();
      expect(found?.response.status).toBe(status);
      expect(found?.time).toBeGreaterThan(0);
      expect(found?.timings.wait).toBeGreaterThanOrEqual(0);
    }

    const consoleLog = await fetch(`${grid.url}/console/${id}.log`);
    expect(consoleLog.status).toBe(200);
    expect(await consoleLog.text()).toMatch(
      /^\S+Z error console\.error http:\/\/10\.0\.2\.2:\d+\/console-and-fetches:\d+:\d+ checkout total was 41$/m,
    );

    for (const path of [`/har/${id}.har`, `/console/${id}.log`]) {
      const answer = await fetch(`${grid.url}${path}`, { headers: ALICE });
      expect(answer.status, path).toBe(404);
      expect(((await answer.json()) as { value: { error: string } }).value.error).toBe('invalid session id');
    }
  });
});
