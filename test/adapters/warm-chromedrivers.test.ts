/**
 * Warm chromedrivers with the real ChromedriverLauncher and real chromedriver/Chromium: N kept started,
 * each taken by exactly one session and replaced, dead ones never handed out, none left after stopping.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ChromedriverLauncher, LAUNCHED_BY_ENV } from '../../functions/adapters/local/chromedriver-launcher';
import type { Capabilities } from '../../functions/core/capabilities';
import { type PoolConfig, parseConfig } from '../../functions/core/config';
import type { LaunchedBrowser } from '../../functions/core/ports';
import { processGroupAlive } from '../support/processes';

// Real processes on a busy machine: generous waits, no timing asserted.
const WAIT_MS = 20_000;
const TEST_MS = 120_000;

type LocalPool = Extract<PoolConfig, { kind: 'local' }>;

// The built-in local pool as parsing fills it in; tests vary only its name and `warm`.
const BUILT_IN = parseConfig({}, { localBrowserVersion: '1' }).pools.local as LocalPool;

function localPool(warm: number, name = 'local'): LocalPool {
  return { ...BUILT_IN, name, warm };
}

/** pids of the chromedrivers this test process started (they carry its pid in LAUNCHED_BY_ENV). */
function ourChromedrivers(): number[] {
  const mark = `${LAUNCHED_BY_ENV}=${process.pid}`;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'chromedriver') return false;
        return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number)
    .sort((a, b) => a - b);
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function launch(launcher: ChromedriverLauncher, pool: LocalPool): Promise<LaunchedBrowser> {
  return launcher.start({
    pool,
    key: 'k',
    user: 'u',
    idleTimeoutMs: 60_000,
    capabilities: { browserName: 'chrome' },
    signal: new AbortController().signal,
  });
}

/** Creates a real session (Chromium starts now) at the browser's chromedriver; returns its ID. */
async function newSession(browser: LaunchedBrowser, extra: Capabilities = {}): Promise<string> {
  const response = await fetch(`http://${browser.address}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ capabilities: { alwaysMatch: { ...browser.capabilities, ...extra } } }),
  });
  const body = (await response.json()) as { value: { sessionId?: string } };
  expect(response.status).toBe(200);
  return body.value.sessionId as string;
}

let launcher: ChromedriverLauncher | undefined;
const unexpectedExits: string[] = [];

function newLauncher(): ChromedriverLauncher {
  unexpectedExits.length = 0;
  launcher = new ChromedriverLauncher({ onUnexpectedExit: (handle) => unexpectedExits.push(handle) });
  return launcher;
}

afterEach(async () => {
  await launcher?.stopAll();
  launcher = undefined;
  expect(ourChromedrivers()).toEqual([]);
});

describe('warm chromedrivers', { timeout: TEST_MS }, () => {
  it('keeps N started and counts none of them as running sessions', async () => {
    const grid = newLauncher();
    grid.keepWarm([localPool(2)]);
    await eventually(() => grid.warmCount('local') === 2, 'two are warm');
    expect(ourChromedrivers()).toHaveLength(2);
    expect(grid.running()).toEqual([]);
    expect(grid.warmCount('other')).toBe(0);
  });

  it('hands a warm one to a new session, starts its replacement, and never hands one out twice', async () => {
    const grid = newLauncher();
    const pool = localPool(1);
    grid.keepWarm([pool]);
    await eventually(() => grid.warmCount('local') === 1, 'one is warm');
    const [warmPid] = ourChromedrivers();

    const first = await launch(grid, pool);
    expect(first.handle).toBe(String(warmPid));
    expect(grid.running()).toEqual([first.handle]);
    await eventually(() => grid.warmCount('local') === 1, 'a replacement is warm');
    expect(ourChromedrivers()).toHaveLength(2);

    const second = await launch(grid, pool);
    expect(second.handle).not.toBe(first.handle);
    expect(second.address).not.toBe(first.address);
    // Chromium starts with the session itself, with the profile the launcher chose for this one only.
    const sessions = await Promise.all([newSession(first), newSession(second)]);
    expect(new Set(sessions).size).toBe(2);
    const profiles = [first, second].map(
      (browser) => (browser.capabilities['goog:chromeOptions'] as { args: string[] }).args,
    );
    expect(profiles[0]).not.toEqual(profiles[1]);

    await grid.stop(first.handle);
    expect(processGroupAlive(Number(first.handle))).toBe(false);
    expect(processGroupAlive(Number(second.handle))).toBe(true);
    expect(grid.running()).toEqual([second.handle]);
    expect(unexpectedExits).toEqual([]);
  });

  it('drops a warm chromedriver that died and hands out a live one instead', async () => {
    const grid = newLauncher();
    const pool = localPool(1);
    grid.keepWarm([pool]);
    await eventually(() => grid.warmCount('local') === 1, 'one is warm');
    const [dead] = ourChromedrivers();
    process.kill(-(dead as number), 'SIGKILL');
    await eventually(() => grid.warmCount('local') === 0, 'the dead one is dropped');

    const browser = await launch(grid, pool);
    expect(browser.handle).not.toBe(String(dead));
    await newSession(browser);
    // A warm chromedriver's death is no session's browser exiting.
    expect(unexpectedExits).toEqual([]);
  });

  it('stops the warm ones a reload no longer wants: warm lowered, pool removed', async () => {
    const grid = newLauncher();
    grid.keepWarm([localPool(2), localPool(1, 'second')]);
    await eventually(() => grid.warmCount('local') === 2 && grid.warmCount('second') === 1, 'three are warm');
    grid.keepWarm([localPool(1)]);
    expect(grid.warmCount('local')).toBe(1);
    expect(grid.warmCount('second')).toBe(0);
    await eventually(() => ourChromedrivers().length === 1, 'two were stopped');
  });

  it('stops warm chromedrivers still starting when the launcher stops', async () => {
    const grid = newLauncher();
    grid.keepWarm([localPool(3)]);
    await grid.stopAll();
    // afterEach checks that none runs; nothing may start after stopAll either.
    grid.keepWarm([localPool(3)]);
    expect(grid.warmCount('local')).toBe(0);
    await expect(launch(grid, localPool(0))).rejects.toThrow(/stopping/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ourChromedrivers()).toEqual([]);
  });

  it('with warm 0 starts nothing ahead and a session gets a chromedriver of its own, as without the pool', async () => {
    const grid = newLauncher();
    const pool = localPool(0);
    grid.keepWarm([pool]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ourChromedrivers()).toEqual([]);
    expect(grid.warmCount('local')).toBe(0);

    const browser = await launch(grid, pool);
    expect(ourChromedrivers()).toEqual([Number(browser.handle)]);
    await newSession(browser);
    await grid.stop(browser.handle);
    expect(ourChromedrivers()).toEqual([]);
  });
});
