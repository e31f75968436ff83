/**
 * A store outage under load: the Node server (`startGrid`) on a DynamoDB table (dynalite) reached through
 * a fault-injecting proxy (dropped connections, slow answers past the client's timeout, 500s, throttling
 * 400s in DynamoDB's own error shape, answers cut mid-body), while 200 sessions come and go on a hub
 * pool (a fake W3C remote end). While it lasts: no crash, commands are served (they need no store), a new
 * session either succeeds or gets a W3C error (503 with Retry-After when the store is what failed). Once
 * the store is back, every slot is accounted for: nothing in use, no record left open, no slot held,
 * every session the hub created ended there, and the whole pool serves again. Figures go to the log
 * (test/load/README.md reports them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGrid } from '../../functions/entry/start-grid';
import { jsonRequest, W3C_CHROME } from '../support/fake-grid';
import { type CollectingLogger, FakeUpstream } from '../support/fakes';
import { eventually } from './served-fake-grid';
import {
  answerOf,
  type OutageGrid,
  runThroughOutage,
  startOutageGrid,
  tally,
  type W3CAnswer,
} from './store-outage-load';

const SESSIONS = 200;
const CLIENTS = 20;
const POOL_SIZE = 30;
const IDLE_S = 2;

let hub: FakeUpstream;
let outageGrid: OutageGrid;
let grid: RunningGrid;
let logger: CollectingLogger;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  hub = await FakeUpstream.start();
  outageGrid = await startOutageGrid(
    'hub',
    { kind: 'hub', url: `http://${hub.address}`, maxSessions: POOL_SIZE },
    // Short, so that the idle sweep ends, well within the recovery wait, a session whose DELETE the store
    // refused.
    { queue: '0s', newSession: '20s', idle: `${IDLE_S}s` },
  );
  ({ grid, logger } = outageGrid);
}, 60_000);

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await outageGrid?.close();
  await hub?.close();
});

describe('a store outage under load', { timeout: 240_000 }, () => {
  it('serves through it, answers 503 while it lasts, and accounts for every slot after', async () => {
    // While it lasts: W3C answers, 503 with Retry-After for the store, commands served.
    const { answers, faults: outageFaults } = await runThroughOutage(
      outageGrid,
      CLIENTS,
      SESSIONS,
      W3C_CHROME,
    );
    const newSessions = answers.newSession;

    // After: every slot back, no record open, every hub session ended at the hub.
    const { clean } = outageGrid;
    const recoveryStarted = Date.now();
    await eventually(async () => {
      expect(await clean.running()).toEqual([]);
      expect(await clean.slots()).toEqual([]);
      expect(await clean.inUse()).toEqual({});
      const ended = new Set(hub.requests.filter((r) => r.method === 'DELETE').map((r) => r.path));
      expect(hub.sessionIds.filter((id) => !ended.has(`/session/${id}`))).toEqual([]);
    }, 60_000);
    const recoveryMs = Date.now() - recoveryStarted;
    expect(unhandled).toEqual([]);

    // No slot lost: the whole pool is held at once (taken one after another: dynalite runs transactions
    // one at a time, and on a loaded machine 30 at once can pass the client's 5 s request timeout).
    const full: W3CAnswer[] = [];
    for (let i = 0; i < POOL_SIZE; i++) {
      full.push(await answerOf(await fetch(`${grid.url}/session`, jsonRequest('POST', W3C_CHROME))));
    }
    expect(full.map((answer) => answer.status)).toEqual(full.map(() => 200));
    // Taking them can outlast the first ones' idle timeout: the idle sweep may end a session before or
    // while its DELETE comes, which is then refused for its timeout, answered once that end is over. Its
    // slot is free when the client hears, either way.
    const deletes: W3CAnswer[] = [];
    for (const { sessionId } of full) {
      deletes.push(await answerOf(await fetch(`${grid.url}/session/${sessionId}`, { method: 'DELETE' })));
    }
    for (const answer of deletes.filter(({ status }) => status !== 200)) {
      expect(answer).toMatchObject({
        status: 404,
        error: 'invalid session id',
        message: `session ended: no command for ${IDLE_S}s (idle timeout)`,
      });
    }
    expect(await clean.inUse()).toEqual({});

    console.log(
      JSON.stringify({
        storeRequestsDuringOutage: outageFaults,
        newSession: tally(newSessions),
        command: tally(answers.command),
        delete: tally(answers.delete),
        fullPoolDelete: tally(deletes),
        hubSessions: hub.sessionIds.length,
        backgroundTaskFailures: logger.fieldsOf('BACKGROUND_TASK_FAILED').length,
        staleSlotsFreed: logger
          .fieldsOf('ORPHANS_REMOVED')
          .reduce((sum, fields) => sum + Number(fields.total ?? 0), 0),
        recoveryMs,
      }),
    );
  });
});
