/**
 * End to end: a session's Chromium killed from outside while its chromedriver lives on (chromedriver then
 * answers only its own "invalid session id"). gridgate notices, ends the session, frees the slot, stops
 * chromedriver and removes the profile, and later commands get its reason. Both for a browser chromedriver
 * started and for a warm one the session attached to.
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { afterEach, describe, expect, it } from 'vitest';
import { PROFILE_PREFIX } from '../../../../functions/pools/local/chromedriver-launcher';
import { chromiumVersion } from '../../../../functions/pools/local/ensure-chromium';
import { sessionClaims } from '../../../e2e/session-ended';
import { chromeSession } from '../../../support/chrome-sessions';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { chromiumWithProfile } from '../../../support/launched-processes';
import { processGroupAlive } from '../../../support/processes';
import { eventually } from '../../../support/until';

// Real Chromium on a busy 2-core machine: generous waits, no timing asserted.
const WAIT_MS = 30_000;
const POLL_MS = 100;
const TEST_MS = 120_000;
const GONE = 'session ended: the browser exited or crashed';

let grid: TestGrid | undefined;
afterEach(async () => {
  await grid?.close();
  grid = undefined;
});

const profiles = () =>
  readdirSync(tmpdir()).filter((name) => name.startsWith(`${PROFILE_PREFIX}${process.pid}-`));

/** The session's Chromium (its main process), by the profile chromedriver reports for it. */
async function sessionChromium(driver: WebDriver): Promise<number> {
  const chromium = chromiumWithProfile(await driver.getCapabilities());
  if (!chromium) throw new Error("no Chromium runs with the session's profile");
  return chromium.pid;
}

async function expectEndedByItsBrowser(running: TestGrid, driver: WebDriver, handle: string) {
  // Without a command: the slot comes back, chromedriver and the profile go.
  await eventually(
    async () => {
      const status = (await (await fetch(`${running.url}/status`)).json()) as {
        value: { pools: { inUse: number }[] };
      };
      expect(status.value.pools[0]?.inUse).toBe(0);
    },
    WAIT_MS,
    POLL_MS,
  );
  expect(running.launcher.running()).toEqual([]);
  expect(processGroupAlive(Number(handle))).toBe(false);
  // The profile goes right after the processes, once nothing reaches it.
  await running.launcher.tornDown(handle);
  await eventually(() => expect(running.logger.events()).toContain('SESSION_ENDED'), WAIT_MS, POLL_MS);
  expect(running.logger.fieldsOf('SESSION_ENDED')[0]).toMatchObject({ reason: 'browser exited' });
  await expect(driver.getTitle()).rejects.toThrow(GONE);
}

describe('a session whose Chromium is killed', { timeout: TEST_MS }, () => {
  it('ends when chromedriver’s own browser dies', async () => {
    grid = await startTestGrid();
    const driver = await chromeSession(grid.url, new ChromeOptions());
    const { handle } = sessionClaims(grid, (await driver.getSession()).getId());
    expect(profiles()).toHaveLength(1);
    process.kill(await sessionChromium(driver), 'SIGKILL');
    await expectEndedByItsBrowser(grid, driver, handle);
    expect(profiles()).toEqual([]);
  });

  it('answers a command sent at once with gridgate’s reason, not chromedriver’s', async () => {
    grid = await startTestGrid();
    const driver = await chromeSession(grid.url, new ChromeOptions());
    const { handle } = sessionClaims(grid, (await driver.getSession()).getId());
    process.kill(await sessionChromium(driver), 'SIGKILL');
    await expect(driver.getTitle()).rejects.toThrow(GONE);
    await expectEndedByItsBrowser(grid, driver, handle);
    expect(profiles()).toEqual([]);
  });

  it('ends when the warm Chromium it attached to dies', async () => {
    const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
    grid = await startTestGrid({
      browsers: { chrome: { defaultVersion: version, versions: { [version]: { pools: ['local'] } } } },
      pools: { local: { kind: 'local', maxSessions: 2, warm: 1 } },
    });
    const running = grid;
    await eventually(() => expect(running.launcher.warmCount('local')).toBe(1), WAIT_MS, POLL_MS);
    const driver = await chromeSession(grid.url, new ChromeOptions());
    const { handle } = sessionClaims(grid, (await driver.getSession()).getId());
    process.kill(await sessionChromium(driver), 'SIGKILL');
    await expectEndedByItsBrowser(grid, driver, handle);
  });
});
