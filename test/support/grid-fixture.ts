/** Starts a real gridgate Node server (real chromedriver and Chromium) on a free loopback port for a test file. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import type { ChromedriverLauncher } from '../../functions/pools/local/chromedriver-launcher';
import { chromiumVersion } from '../../functions/pools/local/ensure-chromium';
import { CollectingLogger } from './fakes';
import { localLauncherOf } from './local-launcher-of';
import { startTestPageServer, type TestPageServer } from './test-page-server';

export interface TestGrid extends RunningGrid {
  /** The local pools' launcher, whose browsers the tests look at. */
  launcher: ChromedriverLauncher;
  logger: CollectingLogger;
  chromiumVersion: string;
}

/** Config keys to override (JSON as a user would write it); port 0 and loopback are always used. */
export async function startTestGrid(overrides: Record<string, unknown> = {}): Promise<TestGrid> {
  const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
  const config = parseConfig(
    { ...overrides, port: 0, host: '127.0.0.1' },
    { builtInBrowserVersion: version },
  );
  const logger = new CollectingLogger();
  const grid = await startGrid(config, randomBytes(32), logger);
  return { ...grid, launcher: localLauncherOf(grid.deps), logger, chromiumVersion: version };
}

export interface GridAndSite {
  grid: TestGrid;
  site: TestPageServer;
}

/** For a test file: a real grid and the loopback test site, started before its tests and closed after. */
export function useGridAndSite(): GridAndSite {
  const started = {} as GridAndSite;
  beforeAll(async () => {
    [started.grid, started.site] = await Promise.all([startTestGrid(), startTestPageServer()]);
  });
  afterAll(async () => {
    await Promise.all([started.grid?.close(), started.site?.close()]);
  });
  return started;
}
