/**
 * End to end: a grid whose local pool keeps one chromedriver warm. selenium-webdriver's sessions each
 * take the warm one, a replacement is started, /status shows it, and closing the grid leaves none.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Builder } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCHED_BY_ENV } from '../../functions/adapters/local/chromedriver-launcher';
import { chromiumVersion } from '../../functions/adapters/local/ensure-chromium';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { processGroupAlive } from '../support/processes';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { expectSessionEnded, sessionClaims } from './session-ended';

// Real Chromium on a busy 2-core machine: generous waits, no timing asserted.
const WAIT_MS = 30_000;
const TEST_MS = 150_000;

let grid: TestGrid;
let site: TestPageServer;

beforeAll(async () => {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  [grid, site] = await Promise.all([
    startTestGrid({
      browsers: {
        chrome: {
          aliases: ['chromium'],
          defaultVersion: version,
          versions: { [version]: { pools: ['local'] } },
        },
      },
      pools: { local: { kind: 'local', maxSessions: 2, warm: 1 } },
    }),
    startTestPageServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
});

/** pids of the chromedrivers this process's grid started: sessions' and warm ones. */
function gridChromedrivers(): string[] {
  const mark = `${LAUNCHED_BY_ENV}=${process.pid}`;
  return readdirSync('/proc').filter((pid) => {
    try {
      if (!/^\d+$/.test(pid) || readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'chromedriver')
        return false;
      return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark);
    } catch {
      return false;
    }
  });
}

async function warmInStatus(): Promise<number | undefined> {
  const response = await fetch(`${grid.url}/status`);
  const body = (await response.json()) as { value: { pools: { name: string; warm?: number }[] } };
  return body.value.pools.find((pool) => pool.name === 'local')?.warm;
}

async function untilWarm(count: number): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while ((await warmInStatus()) !== count) {
    if (Date.now() > deadline) throw new Error(`/status never showed ${count} warm`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a local pool with warm: 1', { timeout: TEST_MS }, () => {
  it('gives each selenium-webdriver session the warm chromedriver and starts the next one', async () => {
    const seen: string[] = [];
    for (let round = 0; round < 2; round++) {
      await untilWarm(1);
      const [warm] = gridChromedrivers();
      expect(gridChromedrivers()).toHaveLength(1);

      const driver = await new Builder().usingServer(grid.url).forBrowser('chrome').build();
      const sessionId = (await driver.getSession()).getId();
      try {
        const { handle } = sessionClaims(grid, sessionId);
        expect(handle).toBe(warm);
        expect(grid.launcher.running()).toEqual([handle]);
        seen.push(handle);
        await driver.get(`${site.url}/`);
        expect(await driver.getTitle()).toBe('gridgate test page');
        await untilWarm(1);
        expect(gridChromedrivers()).toHaveLength(2);
      } finally {
        await driver.quit();
      }
      await expectSessionEnded(grid, sessionId);
    }
    // Every browser served exactly one session.
    expect(new Set(seen).size).toBe(2);
  });

  it('follows a reload of `warm`: 0 stops the warm chromedriver, 1 starts one again', async () => {
    await untilWarm(1);
    const [before] = gridChromedrivers();
    const withWarm = (warm: number) => {
      const local = grid.deps.config.pools.local;
      if (local?.kind !== 'local') throw new Error('the test grid has no local pool');
      // What a reload does (swapConfig): the config is replaced whole, and the grid reads it at call time.
      grid.deps.config = {
        ...grid.deps.config,
        pools: { ...grid.deps.config.pools, local: { ...local, warm } },
      };
    };
    withWarm(0);
    await untilWarm(0);
    // Stopping takes a moment (SIGTERM, then the group and the profile): /status counts it out at once.
    const deadline = Date.now() + WAIT_MS;
    while (processGroupAlive(Number(before)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(processGroupAlive(Number(before))).toBe(false);
    expect(gridChromedrivers()).toEqual([]);
    withWarm(1);
    await untilWarm(1);
    expect(gridChromedrivers()).toHaveLength(1);
  });

  it('stops the warm chromedriver with the grid', async () => {
    await untilWarm(1);
    const warm = gridChromedrivers();
    expect(warm).toHaveLength(1);
    await grid.close();
    expect(processGroupAlive(Number(warm[0]))).toBe(false);
    expect(gridChromedrivers()).toEqual([]);
  });
});
