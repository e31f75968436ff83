/**
 * The ECS warm pool end to end: the cleanup starts a warm task against the in-process ECS API
 * (test/support/fake-ecs-api.ts: each task a real chromedriver on a loopback IP of its own), registers it
 * in a real DynamoDB-compatible store (dynalite) once it is RUNNING and its /status ready; a new session
 * through the real app claims it (no RunTask) and drives Chromium in it with the npm selenium-webdriver
 * client; the task is tagged claimed, and the next cleanup pass starts its replacement.
 */
import { By } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSessionStore } from '../../../../functions/adapters/aws/dynamo-session-store';
import { DynamoSessionStarts } from '../../../../functions/adapters/aws/dynamo-warm-demand';
import { DynamoWarmTasks } from '../../../../functions/adapters/aws/dynamo-warm-tasks';
import { noMetrics, systemClock } from '../../../../functions/core/ports';
import type { OrphanCleanup } from '../../../../functions/entry/aws-cleanup';
import { makeEcsCleanup } from '../../../../functions/pools/ecs/ecs-cleanup';
import { chromeSession, headlessChromeOptions } from '../../../support/chrome-sessions';
import { cleanupRuns, NO_AWS_IDENTITY } from '../../../support/cleanup-runs';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../../../support/dynalite';
import type { FakeEcsApi, FakeTask } from '../../../support/fake-ecs-api';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import { processGroupAlive } from '../../../support/processes';
import type { ServedApp } from '../../../support/served-app';
import type { TestPageServer } from '../../../support/test-page-server';
import { eventually } from '../../../support/until';

const TEST_MS = 90_000;

let fargate: FakeFargateGrid | undefined;
let fake: FakeEcsApi;
let site: TestPageServer;
let dynamo: DynaliteServer;
let table: SessionTableUnderTest;
let grid: ServedApp;
let cleanup: OrphanCleanup;
let warm: DynamoWarmTasks;

beforeAll(async () => {
  dynamo = await startDynalite();
  table = await dynamo.createSessionTable();
  const sessions = new DynamoSessionStore({ client: table.client, table: table.table });
  warm = new DynamoWarmTasks({ client: table.client, table: table.table });
  fargate = await startFakeFargateGrid({
    pool: { maxSessions: 2, warm: { min: 1, max: 1, idleTtl: '10m' } },
    sessions,
    launcher: { warm },
  });
  ({ fake, site, grid } = fargate);
  const { config, logger } = fargate;
  const ecs = fake.client();
  cleanup = cleanupRuns({
    sessions,
    config,
    logger,
    metrics: noMetrics,
    clock: systemClock,
    warm: { warm, starts: new DynamoSessionStarts(table.client, table.table), intervalMs: 60_000 },
    aws: NO_AWS_IDENTITY,
    makers: { ecs: (context) => makeEcsCleanup(context, ecs) },
  });
});

afterAll(async () => {
  await fargate?.close();
  await table?.close();
  await dynamo?.close();
});

const tagsOf = (task: FakeTask) =>
  Object.fromEntries((task.input.tags as { key: string; value: string }[]).map((t) => [t.key, t.value]));

describe('an ECS warm pool (fake Fargate, dynalite)', { timeout: TEST_MS }, () => {
  it('serves a session from a task the cleanup pre-started, tags it claimed, and replaces it', async () => {
    // Pass 1 starts the pool's one warm task; later passes register it once RUNNING and driver-ready.
    const first = await cleanup();
    expect(first.warm?.fargate).toMatchObject({ target: 1, started: 1 });
    const [warmTask] = [...fake.tasks.values()];
    expect(tagsOf(warmTask as FakeTask)).toMatchObject({
      'gridgate:warm': 'unclaimed',
      'gridgate:pool': 'fargate',
    });
    expect(tagsOf(warmTask as FakeTask)).not.toHaveProperty('gridgate:session');
    await eventually(
      async () => {
        const report = await cleanup();
        expect(report.warm?.fargate?.idle).toBe(1);
      },
      20_000,
      200,
    );
    expect(await warm.list('fargate')).toEqual([
      expect.objectContaining({ taskId: warmTask?.id, state: 'idle' }),
    ]);
    const runTasks = fake.callsOf('RunTask').length;

    const driver = await chromeSession(grid.url, headlessChromeOptions());
    try {
      const sessionId = (await driver.getSession()).getId();
      await driver.get(`${site.url}/`);
      expect(await driver.findElement(By.id('heading')).getText()).toBe('Hello from 127.0.0.1');

      // The session runs in the warm task: no RunTask for it, and the task now carries the session's tags.
      expect(fake.callsOf('RunTask')).toHaveLength(runTasks);
      const check = grid.deps.tokens.verify(sessionId, 'guest');
      expect(check.ok && check.claims.handle).toBe(warmTask?.id);
      expect(fake.callsOf('TagResource')).toEqual([
        {
          resourceArn: warmTask?.arn,
          tags: [
            { key: 'gridgate:warm', value: 'claimed' },
            { key: 'gridgate:session', value: expect.any(String) },
            { key: 'gridgate:user', value: 'guest' },
            { key: 'gridgate:created-at', value: expect.stringMatching(/^\d+$/) },
          ],
        },
      ]);
      expect(tagsOf(warmTask as FakeTask)['gridgate:warm']).toBe('claimed');

      // The next pass keeps the claimed task (its session is live), forgets its entry and starts a replacement.
      const next = await cleanup();
      expect(next.total).toBe(0);
      expect(next.warm?.fargate).toMatchObject({ target: 1, started: 1 });
      expect(fake.callsOf('RunTask')).toHaveLength(runTasks + 1);
      expect(tagsOf(fake.tasks.get(warmTask?.id as string) as FakeTask)['gridgate:session']).toBeDefined();
      expect(await warm.list('fargate')).toEqual([]);
    } finally {
      await driver.quit();
    }
    expect(fake.callsOf('StopTask')).toContainEqual({
      cluster: 'gridgate-browsers',
      task: warmTask?.id,
      reason: 'gridgate: deleted',
    });
    await warmTask?.gone;
    expect(processGroupAlive(warmTask?.pid)).toBe(false);
  });
});
