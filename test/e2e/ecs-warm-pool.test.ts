/**
 * The ECS warm pool end to end: the cleanup starts a warm task against the in-process ECS API
 * (test/support/fake-ecs-api.ts: each task a real chromedriver on a loopback IP of its own), registers it
 * in a real DynamoDB-compatible store (dynalite) once it is RUNNING and its /status ready; a new session
 * through the real app claims it (no RunTask) and drives Chromium in it with the npm selenium-webdriver
 * client; the task is tagged claimed, and the next cleanup pass starts its replacement.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ECSClient } from '@aws-sdk/client-ecs';
import { serve } from '@hono/node-server';
import { Builder, By } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { DynamoSessionStarts } from '../../functions/adapters/aws/dynamo-warm-demand';
import { DynamoWarmTasks } from '../../functions/adapters/aws/dynamo-warm-tasks';
import { EcsLauncher } from '../../functions/adapters/aws/ecs-launcher';
import { type CleanupReport, runOrphanCleanup } from '../../functions/adapters/aws/orphan-cleanup';
import { parseConfig } from '../../functions/core/config';
import { endAllSessions } from '../../functions/core/end-session';
import type { GridDeps } from '../../functions/core/grid-deps';
import { noMetrics, systemClock } from '../../functions/core/ports';
import { SessionTokens } from '../../functions/core/session-token';
import { SlotQueue } from '../../functions/core/slot-queue';
import { createApp } from '../../functions/http/create-app';
import { createUpstreamAgent } from '../../functions/http/upstream-client';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { FakeEcsApi, type FakeTask } from '../support/fake-ecs-api';
import { CollectingLogger } from '../support/fakes';
import { freePort, processGroupAlive } from '../support/processes';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';

const TEST_MS = 90_000;

let fake: FakeEcsApi;
let site: TestPageServer;
let dynamo: DynaliteServer;
let table: SessionTableUnderTest;
let server: Server;
let agent: Agent;
let deps: GridDeps;
let gridUrl: string;
let cleanup: () => Promise<CleanupReport>;
let warm: DynamoWarmTasks;

beforeAll(async () => {
  const port = await freePort();
  [fake, site, dynamo] = await Promise.all([
    FakeEcsApi.start({ containerPort: port }),
    startTestPageServer(),
    startDynalite(),
  ]);
  table = await dynamo.createSessionTable();
  const ecs = new ECSClient({
    region: 'us-east-1',
    endpoint: fake.endpoint,
    credentials: { accessKeyId: 'AKIDFAKEECS', secretAccessKey: 'fake-ecs-secret' },
  });
  const config = parseConfig(
    {
      port: 0,
      host: '127.0.0.1',
      browsers: { chrome: { defaultVersion: '156', versions: { '156': { pools: ['fargate'] } } } },
      pools: {
        fargate: {
          kind: 'ecs',
          cluster: 'gridgate-browsers',
          taskDefinition: 'gridgate-chrome:1',
          subnets: ['subnet-a', 'subnet-b'],
          securityGroups: ['sg-browsers'],
          networks: ['127.0.0.0/8'],
          port,
          maxSessions: 2,
          warm: { min: 1, max: 1, idleTtl: '10m' },
        },
      },
    },
    { localBrowserVersion: 'unused' },
  );
  const logger = new CollectingLogger();
  const sessions = new DynamoSessionStore({ client: table.client, table: table.table });
  warm = new DynamoWarmTasks({ client: table.client, table: table.table });
  deps = {
    config,
    launchers: { ecs: new EcsLauncher({ ecs, logger, warm }) },
    sessions,
    queue: new SlotQueue(),
    tokens: new SessionTokens(randomBytes(32)),
    logger,
    clock: systemClock,
    version: '0.0.0-test',
  };
  cleanup = () =>
    runOrphanCleanup({
      ecs,
      sessions,
      config,
      logger,
      metrics: noMetrics,
      clock: systemClock,
      warm: { warm, starts: new DynamoSessionStarts(table.client, table.table), intervalMs: 60_000 },
    });
  agent = createUpstreamAgent();
  const app = createApp(deps, { agent });
  server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
      resolve(started as Server),
    );
  });
  gridUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (deps) await endAllSessions(deps, 'server shutdown');
  await fake?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await Promise.all([agent?.close(), site?.close()]);
  await table?.close();
  await dynamo?.close();
  for (const task of fake?.tasks.values() ?? []) expect(processGroupAlive(task.pid)).toBe(false);
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
    await vi.waitFor(
      async () => {
        const report = await cleanup();
        expect(report.warm?.fargate?.idle).toBe(1);
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(await warm.list('fargate')).toEqual([
      expect.objectContaining({ taskId: warmTask?.id, state: 'idle' }),
    ]);
    const runTasks = fake.callsOf('RunTask').length;

    const options = new ChromeOptions();
    options.addArguments('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage');
    const driver = await new Builder()
      .usingServer(gridUrl)
      .forBrowser('chrome')
      .setChromeOptions(options)
      .build();
    try {
      const sessionId = (await driver.getSession()).getId();
      await driver.get(`${site.url}/`);
      expect(await driver.findElement(By.id('heading')).getText()).toBe('Hello from 127.0.0.1');

      // The session runs in the warm task: no RunTask for it, and the task now carries the session's tags.
      expect(fake.callsOf('RunTask')).toHaveLength(runTasks);
      const check = deps.tokens.verify(sessionId, 'guest');
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
