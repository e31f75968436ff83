/**
 * A shutdown arriving while a session's browser is being stopped: every caller of stop() (the DELETE's,
 * the shutdown's) waits for the whole stop, so when the shutdown is done the processes are gone and the
 * profile is removed. Real chromedriver and Chromium.
 */
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { type PoolConfig, parseConfig } from '../../functions/core/config';
import { ChromedriverLauncher, PROFILE_PREFIX } from '../../functions/pools/local/chromedriver-launcher';
import { jsonRequest, W3C_CHROME } from '../support/fake-grid';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { launchedProcesses } from '../support/launched-processes';
import { processGroupAlive } from '../support/processes';

const TEST_MS = 90_000;
const LOCAL = parseConfig({}, { builtInBrowserVersion: '1' }).pools.local as Extract<
  PoolConfig,
  { kind: 'local' }
>;
const profiles = () =>
  readdirSync(tmpdir()).filter((name) => name.startsWith(`${PROFILE_PREFIX}${process.pid}-`));

let grid: TestGrid | undefined;
afterEach(async () => {
  await grid?.close();
  grid = undefined;
  expect(launchedProcesses()).toEqual([]);
});

describe('a stop racing another', { timeout: TEST_MS }, () => {
  it('lets a second caller of stop() wait until no process runs, and tornDown() until the profile is gone', async () => {
    const launcher = new ChromedriverLauncher();
    const browser = await launcher.start({
      pool: LOCAL,
      key: 'k',
      user: 'u',
      idleTimeoutMs: 60_000,
      inUseMs: 3_660_000,
      capabilities: { browserName: 'chrome' },
      signal: new AbortController().signal,
    });
    const args = (browser.capabilities['goog:chromeOptions'] as { args: string[] }).args;
    const profile = args.find((arg) => arg.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
    expect(profile && existsSync(profile)).toBe(true);
    const first = launcher.stop(browser.handle);
    await launcher.stop(browser.handle);
    expect(processGroupAlive(Number(browser.handle))).toBe(false);
    expect(launcher.running()).toEqual([]);
    await launcher.tornDown(browser.handle);
    expect(existsSync(profile as string)).toBe(false);
    await first;
  });

  it('closes the grid only once a session being deleted meanwhile is stopped and its profile removed', async () => {
    grid = await startTestGrid();
    const created = await fetch(`${grid.url}/session`, jsonRequest('POST', W3C_CHROME));
    const { sessionId } = ((await created.json()) as { value: { sessionId: string } }).value;
    // The session's profile, and the one made for the chromedriver kept ready for the next session.
    expect(profiles().length).toBeGreaterThanOrEqual(1);
    // Every stop is held until the shutdown has begun, so the race is made rather than left to timing: a
    // stop quicker than the loop below would end before the shutdown arrives.
    const running = grid;
    const { launcher } = running;
    const stopNow = launcher.stop.bind(launcher);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    launcher.stop = async (handle, context) => {
      await held;
      return stopNow(handle, context);
    };
    const deleting = fetch(`${grid.url}/session/${sessionId}`, { method: 'DELETE' }).catch(() => undefined);
    // The shutdown comes once the DELETE has ended the record and is stopping the browser.
    while ((await running.deps.sessions.running()).length > 0) await new Promise(setImmediate);
    expect(launcher.running()).toHaveLength(1);
    const closing = grid.close();
    release();
    await closing;
    grid = undefined;
    expect(profiles()).toEqual([]);
    expect(launchedProcesses()).toEqual([]);
    await deleting;
  });
});
