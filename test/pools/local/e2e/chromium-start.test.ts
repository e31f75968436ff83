/**
 * End to end on real chromedriver and Chromium: a local pool's browser starts from Debian's real binary
 * (/usr/lib/chromium/chromium) with what the /usr/bin/chromium wrapper would have given it, and without the
 * wrapper's shell. The reference is a second pool whose Chromium is a script that execs the wrapper, which the
 * grid cannot see through: its browser starts through the wrapper, as a bare chromedriver's does. Both sessions
 * ask the same, so their browsers' command lines and environments must match but for what is per session.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions, ServiceBuilder } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LAUNCHED_BY_ENV } from '../../../../functions/pools/local/chromedriver-launcher';
import { DEBIAN_LAYOUT } from '../../../../functions/pools/local/chromium-wrapper';
import { chromeSession, headlessChromeOptions } from '../../../support/chrome-sessions';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { chromiumWithProfile } from '../../../support/launched-processes';

const TEST_MS = 120_000;
// The wrapper's shell runs its dozen programs for 0.1–0.8 s: a look every few ms sees it.
const LOOK_MS = 5;
const MARK = `${LAUNCHED_BY_ENV}=${process.pid}`;

let grid: TestGrid;
let folder: string;

beforeAll(async () => {
  // Readable by a namespaced browser's own user, which runs the reference pool's script.
  folder = await mkdtemp(join(tmpdir(), 'gridgate-through-wrapper-'));
  await chmod(folder, 0o755);
  const throughWrapper = join(folder, 'chromium');
  await writeFile(throughWrapper, `#!/bin/sh\nexec ${DEBIAN_LAYOUT.wrapper} "$@"\n`, { mode: 0o755 });
  grid = await startTestGrid({
    browsers: {
      chrome: {
        defaultVersion: 'direct',
        versions: { direct: { pools: ['direct'] }, wrapped: { pools: ['wrapped'] } },
      },
    },
    pools: { direct: { kind: 'local' }, wrapped: { kind: 'local', chromium: throughWrapper } },
  });
});
afterAll(async () => {
  await grid?.close();
  await rm(folder, { recursive: true, force: true });
});

/** Command lines of this test's processes running Debian's wrapper script, looked for until stopped. */
function watchForWrapperShells(): () => Promise<string[][]> {
  const seen: string[][] = [];
  let watching = true;
  const looking = (async () => {
    while (watching) {
      for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
        try {
          const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
          if (argv[1] !== DEBIAN_LAYOUT.wrapper) continue;
          if (readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(MARK)) seen.push(argv);
        } catch {
          // gone meanwhile
        }
      }
      await new Promise((resolve) => setTimeout(resolve, LOOK_MS));
    }
  })();
  return async () => {
    watching = false;
    await looking;
    return seen;
  };
}

interface Started {
  driver: WebDriver;
  argv: string[];
  env: Map<string, string>;
  wrapperShells: string[][];
}

async function startSession(version: 'direct' | 'wrapped'): Promise<Started> {
  const options = new ChromeOptions();
  options.setBrowserVersion(version);
  const stopWatching = watchForWrapperShells();
  const driver = await chromeSession(grid.url, options).catch(async (error: unknown) => {
    await stopWatching();
    throw error;
  });
  const wrapperShells = await stopWatching();
  const chromium = chromiumWithProfile(await driver.getCapabilities());
  if (!chromium) throw new Error(`no Chromium found for the ${version} session`);
  const argv = readFileSync(`/proc/${chromium.pid}/cmdline`, 'latin1').split('\0').slice(0, -1);
  const env = new Map(
    readFileSync(`/proc/${chromium.pid}/environ`, 'latin1')
      .split('\0')
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)] as const),
  );
  return { driver, argv, env, wrapperShells };
}

/** What is the session's own: its profile and home, and where the browser is told to open. */
const perSession = (argv: string[]) =>
  argv.filter((arg) => !/^--user-data-dir=/.test(arg) && !arg.startsWith('data:')).sort();
const PER_SESSION_ENV = new Set(['HOME', 'TMPDIR']);

it("starts the real binary with the wrapper's flags and environment, and no wrapper shell", {
  timeout: TEST_MS,
}, async () => {
  const wrapped = await startSession('wrapped');
  const direct = await startSession('direct');
  try {
    // The look for wrapper shells sees the reference pool's: it would see one in front of the direct pool's.
    expect(wrapped.wrapperShells.length).toBeGreaterThan(0);
    expect(direct.wrapperShells).toEqual([]);

    expect(wrapped.argv[0]).toBe(DEBIAN_LAYOUT.binary);
    expect(direct.argv[0]).toBe(DEBIAN_LAYOUT.binary);
    // The wrapper's flags (also in its CHROMIUM_FLAGS) come first, then chromedriver's.
    const flags = (wrapped.env.get('CHROMIUM_FLAGS') ?? '').trim().split(/\s+/);
    expect(flags.length).toBeGreaterThan(0);
    expect(direct.argv.slice(1, 1 + flags.length)).toEqual(flags);
    expect(perSession(direct.argv.slice(1))).toEqual(perSession(wrapped.argv.slice(1)));

    const environment = (env: Map<string, string>) =>
      Object.fromEntries([...env].filter(([name]) => !PER_SESSION_ENV.has(name)));
    expect(environment(direct.env)).toEqual(environment(wrapped.env));
    expect(direct.env.get('CHROME_WRAPPER')).toBe(DEBIAN_LAYOUT.wrapper);

    // And the browser works.
    await direct.driver.get('data:text/html,<title>started</title>');
    expect(await direct.driver.getTitle()).toBe('started');
  } finally {
    await Promise.all([wrapped.driver.quit(), direct.driver.quit()]);
  }
});

it('opens the first page a bare chromedriver opens, not Chromium’s New Tab page', {
  timeout: TEST_MS,
}, async () => {
  // A client without a grid: chromedriver makes the profile and tells Chromium which page to open first.
  const bare = await new Builder()
    .forBrowser('chrome')
    .setChromeOptions(headlessChromeOptions())
    .setChromeService(new ServiceBuilder('/usr/bin/chromedriver'))
    .build();
  const { driver } = await startSession('direct');
  try {
    const first = await bare.getCurrentUrl();
    expect(first).not.toMatch(/^chrome:/);
    expect(await driver.getCurrentUrl()).toBe(first);
    expect(await driver.getAllWindowHandles()).toHaveLength(1);
  } finally {
    await Promise.all([bare.quit(), driver.quit()]);
  }
});
