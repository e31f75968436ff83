/**
 * Warm browsers with the real ChromedriverLauncher and real chromedriver/Chromium: N kept started (each a
 * chromedriver and a Chromium launched ahead), each taken by exactly one session and replaced, dead ones
 * never handed out, requests that need launch-time options served cold, none left after stopping.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Capabilities } from '../../../functions/core/capabilities';
import { type PoolConfig, parseConfig } from '../../../functions/core/config';
import type { LaunchedBrowser, LaunchRequest } from '../../../functions/core/ports';
import { ChromedriverLauncher } from '../../../functions/pools/local/chromedriver-launcher';
import { devtoolsPort, type LaunchedProcess, launchedProcesses } from '../../support/launched-processes';
import { processGroupAlive } from '../../support/processes';
import { until } from '../../support/until';

// Real processes on a busy machine: until's generous waits, no timing asserted.
const TEST_MS = 150_000;

type LocalPool = Extract<PoolConfig, { kind: 'local' }>;

// The built-in local pool as parsing fills it in; tests vary only its name, `warm` and `args`.
const BUILT_IN = parseConfig({}, { builtInBrowserVersion: '1' }).pools.local as LocalPool;

function localPool(warm: number, name = 'local', args: string[] = []): LocalPool {
  return { ...BUILT_IN, name, warm, args };
}

const pids = (name: 'chromedriver' | 'chromium') => launchedProcesses(name).map((p) => p.pid);

function launch(
  launcher: ChromedriverLauncher,
  pool: LocalPool,
  capabilities: Capabilities = { browserName: 'chrome' },
  onStage?: LaunchRequest['onStage'],
): Promise<LaunchedBrowser> {
  return launcher.start({
    pool,
    key: 'k',
    user: 'u',
    idleTimeoutMs: 60_000,
    inUseMs: 3_660_000,
    capabilities,
    signal: new AbortController().signal,
    onStage,
  });
}

/** Creates a real session at the browser's chromedriver; returns its ID and capabilities. */
async function newSession(
  browser: LaunchedBrowser,
): Promise<{ sessionId: string; capabilities: Capabilities }> {
  const response = await fetch(`http://${browser.address}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ capabilities: { alwaysMatch: browser.capabilities } }),
  });
  const body = (await response.json()) as { value: { sessionId: string; capabilities: Capabilities } };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.value;
}

async function execute(browser: LaunchedBrowser, sessionId: string, script: string): Promise<unknown> {
  const response = await fetch(`http://${browser.address}/session/${sessionId}/execute/sync`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ script, args: [] }),
  });
  return ((await response.json()) as { value: unknown }).value;
}

const debuggerPort = (capabilities: Capabilities) =>
  Number(
    String((capabilities['goog:chromeOptions'] as { debuggerAddress: string }).debuggerAddress).split(':')[1],
  );

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
  expect(launchedProcesses()).toEqual([]);
});

describe('warm browsers', { timeout: TEST_MS }, () => {
  it('keeps N chromedrivers and Chromiums started and counts none of them as running sessions', async () => {
    const grid = newLauncher();
    grid.keepWarm([localPool(2)]);
    await until(() => grid.warmCount('local') === 2, 'two are warm');
    expect(pids('chromedriver')).toHaveLength(2);
    expect(pids('chromium')).toHaveLength(2);
    expect(grid.running()).toEqual([]);
    expect(grid.warmCount('other')).toBe(0);
  });

  it('hands a warm browser to a plain session, starts its replacement, and never hands one out twice', async () => {
    const grid = newLauncher();
    const pool = localPool(1);
    grid.keepWarm([pool]);
    await until(() => grid.warmCount('local') === 1, 'one is warm');
    const [warmDriver] = pids('chromedriver');
    const [warmChromium] = launchedProcesses('chromium');
    const stages: string[] = [];

    const first = await launch(grid, pool, { browserName: 'chrome' }, (stage) => stages.push(stage));
    expect(stages).toEqual(['driver']);
    expect(first.handle).toBe(String(warmDriver));
    expect(grid.running()).toEqual([first.handle]);
    const firstSession = await newSession(first);
    // chromedriver attached to the Chromium that ran before the request, and it is driven as usual.
    expect(debuggerPort(firstSession.capabilities)).toBe(devtoolsPort(warmChromium as LaunchedProcess));
    expect(await execute(first, firstSession.sessionId, 'return navigator.webdriver')).toBe(true);
    await until(() => grid.warmCount('local') === 1, 'a replacement is warm');
    expect(pids('chromium')).toHaveLength(2);

    const second = await launch(grid, pool);
    expect(second.handle).not.toBe(first.handle);
    const secondSession = await newSession(second);
    expect(debuggerPort(secondSession.capabilities)).not.toBe(debuggerPort(firstSession.capabilities));

    // chromedriver does not quit a browser it attached to: stopping ends Chromium's group as well.
    await grid.stop(first.handle);
    expect(processGroupAlive(Number(first.handle))).toBe(false);
    expect(processGroupAlive(warmChromium?.pid)).toBe(false);
    expect(processGroupAlive(Number(second.handle))).toBe(true);
    expect(grid.running()).toEqual([second.handle]);
    expect(unexpectedExits).toEqual([]);
  });

  it('serves a request with launch-time options cold, with its arguments, and keeps the warm browser', async () => {
    const grid = newLauncher();
    const pool = localPool(1);
    grid.keepWarm([pool]);
    await until(() => grid.warmCount('local') === 1, 'one is warm');
    const [warmDriver] = pids('chromedriver');
    const stages: string[] = [];

    const browser = await launch(
      grid,
      pool,
      { browserName: 'chrome', 'goog:chromeOptions': { args: ['--window-size=640,480'] } },
      (stage) => stages.push(stage),
    );
    expect(stages).toEqual(['launch', 'driver']);
    expect(browser.handle).not.toBe(String(warmDriver));
    const session = await newSession(browser);
    expect(
      await execute(browser, session.sessionId, 'return [window.outerWidth, window.outerHeight]'),
    ).toEqual([640, 480]);
    expect(grid.warmCount('local')).toBe(1);
    await grid.stop(browser.handle);
    expect(pids('chromium')).toHaveLength(1);
  });

  it('drops a warm browser whose Chromium died and hands out a live one instead', async () => {
    const grid = newLauncher();
    const pool = localPool(1);
    grid.keepWarm([pool]);
    await until(() => grid.warmCount('local') === 1, 'one is warm');
    const [deadDriver] = pids('chromedriver');
    const [deadChromium] = pids('chromium');
    process.kill(-(deadChromium as number), 'SIGKILL');
    await until(() => grid.warmCount('local') === 0, 'the dead one is dropped');
    // Its chromedriver goes with it.
    await until(() => !processGroupAlive(deadDriver), 'its chromedriver is stopped');

    // What start-grid's periodic check does: after the pause that follows a failure, a new one starts.
    await until(() => {
      grid.keepWarm([pool]);
      return grid.warmCount('local') === 1;
    }, 'a new one is warm');
    const browser = await launch(grid, pool);
    expect(browser.handle).not.toBe(String(deadDriver));
    await newSession(browser);
    // A warm browser's death is no session's browser exiting.
    expect(unexpectedExits).toEqual([]);
  });

  it('drops a warm browser whose chromedriver died', async () => {
    const grid = newLauncher();
    const pool = localPool(1);
    grid.keepWarm([pool]);
    await until(() => grid.warmCount('local') === 1, 'one is warm');
    const [deadDriver] = pids('chromedriver');
    const [orphan] = pids('chromium');
    process.kill(-(deadDriver as number), 'SIGKILL');
    await until(() => grid.warmCount('local') === 0, 'the dead one is dropped');
    await until(() => !processGroupAlive(orphan), 'its Chromium is stopped');
    expect(unexpectedExits).toEqual([]);
  });

  it('replaces the warm browsers a reload changes, stops those it no longer wants', async () => {
    const grid = newLauncher();
    grid.keepWarm([localPool(2), localPool(1, 'second')]);
    await until(() => grid.warmCount('local') === 2 && grid.warmCount('second') === 1, 'three are warm');
    const before = launchedProcesses('chromium').map((p) => p.pid);
    grid.keepWarm([localPool(1, 'local', ['--lang=de'])]);
    expect(grid.warmCount('second')).toBe(0);
    await until(
      () => grid.warmCount('local') === 1 && launchedProcesses().length === 2,
      'one new warm browser is left',
    );
    const [chromium] = launchedProcesses('chromium');
    expect(before).not.toContain(chromium?.pid);
    expect(chromium?.args).toContain('--lang=de');
  });

  it('stops warm browsers still starting when the launcher stops', async () => {
    const grid = newLauncher();
    grid.keepWarm([localPool(3)]);
    await grid.stopAll();
    // afterEach checks that none runs; nothing may start after stopAll either.
    grid.keepWarm([localPool(3)]);
    expect(grid.warmCount('local')).toBe(0);
    await expect(launch(grid, localPool(0))).rejects.toThrow(/stopping/);
    // A fixed window on purpose: what is tested is that nothing starts, so there is no event to wait for.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(launchedProcesses()).toEqual([]);
  });

  it('with warm 0 starts no Chromium ahead, only a chromedriver, which a session takes', async () => {
    const grid = newLauncher();
    const pool = localPool(0);
    grid.keepWarm([pool]);
    await until(() => pids('chromedriver').length === 1, 'a chromedriver is ready');
    expect(pids('chromium')).toEqual([]);
    expect(grid.warmCount('local')).toBe(0);
    expect(grid.running()).toEqual([]);
    const [ready] = pids('chromedriver');

    const browser = await launch(grid, pool);
    expect(Number(browser.handle)).toBe(ready);
    // The refill waits until the session's browser answered (it would compete with Chromium's start), which
    // the grid tells the launcher with opened(); the grid calls keepWarm every second: the next call refills.
    grid.keepWarm([pool]);
    expect(pids('chromedriver')).toEqual([ready]);
    const session = await newSession(browser);
    await grid.opened(browser.handle, session.capabilities);
    grid.keepWarm([pool]);
    await until(() => pids('chromedriver').length === 2, 'another chromedriver is made ready');
    await grid.stop(browser.handle);
    expect(pids('chromedriver')).not.toContain(ready);
  });
});
