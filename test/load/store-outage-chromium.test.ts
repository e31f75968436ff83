/**
 * The store outage of store-outage.test.ts with real browsers: the Node server (`startGrid`) on a
 * DynamoDB table (dynalite) behind the fault-injecting proxy, its pool local Chromium through
 * chromedriver, while sessions come and go. Sized for a 2-core machine: a pool of 2 browsers, 3 clients
 * (so a pool-full answer is seen too), 20 sessions. While it lasts: no crash, every failed new session a
 * W3C error with Retry-After (503 when the store failed), commands served. Once the store is back: no
 * record open, no slot held, and no chromedriver or Chromium left running; the whole pool serves again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGrid } from '../../functions/entry/start-grid';
import { jsonRequest, W3C_CHROME } from '../support/fake-grid';
import type { CollectingLogger } from '../support/fakes';
import { launchedProcesses } from '../support/launched-processes';
import { localLauncherOf } from '../support/local-launcher-of';
import { eventually } from './served-fake-grid';
import { answerOf, type OutageGrid, runThroughOutage, startOutageGrid, tally } from './store-outage-load';

const SESSIONS = 20;
const CLIENTS = 3;
const POOL_SIZE = 2;

let outageGrid: OutageGrid;
let grid: RunningGrid;
let logger: CollectingLogger;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  outageGrid = await startOutageGrid(
    'local',
    { kind: 'local', maxSessions: POOL_SIZE },
    { queue: '20s', newSession: '10s', idle: '15s' },
  );
  ({ grid, logger } = outageGrid);
}, 60_000);

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await outageGrid?.close();
});

describe('a store outage under load, with real Chromium', { timeout: 300_000 }, () => {
  it('serves through it, answers 503 while it lasts, and leaves no slot, record or browser after', async () => {
    // While it lasts: W3C answers, 503 with Retry-After for the store, commands served.
    const { answers, faults: outageFaults } = await runThroughOutage(
      outageGrid,
      CLIENTS,
      SESSIONS,
      W3C_CHROME,
    );
    const newSessions = answers.newSession;

    // After: every slot back, no record open, no browser running (a DELETE the store refused is ended
    // by the idle sweep, a slot whose release failed by the stale-slot sweep).
    const { clean } = outageGrid;
    const recoveryStarted = Date.now();
    await eventually(async () => {
      expect(await clean.running()).toEqual([]);
      expect(await clean.slots()).toEqual([]);
      expect(await clean.inUse()).toEqual({});
      expect(localLauncherOf(grid.deps).running()).toEqual([]);
      // At most the chromedriver kept ready for the next session, and no Chromium.
      expect(launchedProcesses('chromium')).toEqual([]);
      expect(launchedProcesses('chromedriver').length).toBeLessThanOrEqual(1);
    }, 90_000);
    const recoveryMs = Date.now() - recoveryStarted;
    expect(unhandled).toEqual([]);

    // No slot lost: the whole pool at once, on real browsers.
    const full = await Promise.all(
      Array.from({ length: POOL_SIZE }, async () =>
        answerOf(await fetch(`${grid.url}/session`, jsonRequest('POST', W3C_CHROME))),
      ),
    );
    expect(full.map((answer) => answer.status)).toEqual(full.map(() => 200));
    for (const { sessionId } of full) await fetch(`${grid.url}/session/${sessionId}`, { method: 'DELETE' });
    expect(await clean.inUse()).toEqual({});
    await eventually(() => expect(launchedProcesses('chromium')).toEqual([]), 30_000);

    console.log(
      JSON.stringify({
        storeRequestsDuringOutage: outageFaults,
        newSession: tally(newSessions),
        command: tally(answers.command),
        delete: tally(answers.delete),
        browsersExited: logger.fieldsOf('BROWSER_EXITED').length,
        backgroundTaskFailures: logger.fieldsOf('BACKGROUND_TASK_FAILED').length,
        staleSlotsFreed: logger
          .fieldsOf('ORPHANS_REMOVED')
          .reduce((sum, fields) => sum + Number(fields.total ?? 0), 0),
        recoveryMs,
      }),
    );
  });
});
