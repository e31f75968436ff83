/**
 * Several Node servers (`startGrid`, as `npm start` runs it) in front of one ECS cluster and one
 * DynamoDB table: quotas hold across them, any of them serves a session another created, and one
 * shutting down leaves the others' browsers alone. The table is dynalite on loopback; ECS is the
 * in-process fake whose "tasks" are real chromedriver and Chromium; the client is selenium-webdriver.
 */
import { randomBytes } from 'node:crypto';
import type { WebDriver } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import type { Config } from '../../functions/core/config';
import type { AwsAdapters } from '../../functions/entry/aws-adapters';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import type { RuntimeMakers } from '../../functions/pools';
import { EcsLauncher } from '../../functions/pools/ecs/ecs-launcher';
import { chromeSession, headlessChromeOptions } from '../support/chrome-sessions';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { FakeEcsApi } from '../support/fake-ecs-api';
import { CollectingLogger } from '../support/fakes';
import { configWithOnePool } from '../support/one-pool-config';
import { freePortBelowEphemeral } from '../support/processes';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';

const TEST_MS = 90_000;

let dynamo: DynaliteServer;
let table: SessionTableUnderTest;
let fake: FakeEcsApi;
let site: TestPageServer;
const heads: RunningGrid[] = [];
const drivers: WebDriver[] = [];

/** One router head: its own process state, the shared table and cluster, the same signing key. */
async function startHead(config: Config, secret: Buffer): Promise<RunningGrid> {
  const ecs = fake.client();
  const aws: AwsAdapters = {
    sessionStore: async (name) => new DynamoSessionStore({ client: dynamo.newClient(), table: name }),
    identity: async () => {
      throw new Error('no eks pools in this test');
    },
    warmTasks: async () => {
      throw new Error('no warm pools in this test');
    },
    metrics: async () => {
      throw new Error('the Node server measures nothing through EMF');
    },
    secret: async () => {
      throw new Error('no secret ARN in this test');
    },
  };
  // The ecs runtime over the fake ECS API's client (the kind's own makes one for AWS's endpoint).
  const makers: RuntimeMakers = {
    ecs: async ({ agent, logger, metrics }) => ({
      runtime: { launcher: new EcsLauncher({ ecs, agent, logger, metrics }) },
    }),
  };
  const head = await startGrid(config, secret, new CollectingLogger(), { aws, makers, reloadPollMs: 0 });
  heads.push(head);
  return head;
}

function chrome(url: string): Promise<WebDriver> {
  return chromeSession(url, headlessChromeOptions());
}

/** The same session (by its ID) as seen through another head. */
async function sameSessionVia(url: string, sessionId: string, path: string): Promise<Response> {
  return fetch(`${url}/session/${sessionId}${path}`);
}

beforeAll(async () => {
  [dynamo, fake, site] = await Promise.all([
    startDynalite(),
    FakeEcsApi.start({ containerPort: await freePortBelowEphemeral() }),
    startTestPageServer(),
  ]);
  table = await dynamo.createSessionTable();
  const config = configWithOnePool(
    'fargate',
    { ...fake.poolSettings(), maxSessions: 1 },
    {
      port: 0,
      host: '127.0.0.1',
      store: { kind: 'dynamodb', table: table.table },
      timeouts: { queue: '0s' },
    },
  );
  const secret = randomBytes(32);
  await startHead(config, secret);
  await startHead(config, secret);
}, TEST_MS);

afterAll(async () => {
  await Promise.allSettled(drivers.map((driver) => driver.quit()));
  await Promise.allSettled(heads.map((head) => head.close()));
  // Whatever a failed test left: the fake stops its tasks' processes.
  await fake?.close();
  await Promise.allSettled([table?.close(), dynamo?.close(), site?.close()]);
});

describe('Node routers sharing a DynamoDB table and an ECS cluster', { timeout: TEST_MS }, () => {
  it('serve one session from any head, count it against the one quota, and stop its task once', async () => {
    const [a, b] = heads as [RunningGrid, RunningGrid];
    const driver = await chrome(a.url);
    drivers.push(driver);
    const sessionId = (await driver.getSession()).getId();
    await driver.get(`${site.url}/`);

    // Head B never saw this session created, yet drives it: everything is in the ID.
    const title = await sameSessionVia(b.url, sessionId, '/title');
    expect(await title.json()).toEqual({ value: 'gridgate test page' });

    // The pool's one slot is taken in the shared table: head B refuses a second session at once.
    const second = await fetch(`${b.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
    });
    expect(second.status).toBe(500);
    expect((await second.json()).value).toMatchObject({ error: 'session not created' });
    expect(await b.deps.sessions.inUse()).toEqual({ fargate: 1 });

    // Deleting through head B ends the session head A created: the task stops and the slot frees.
    const deleted = await fetch(`${b.url}/session/${sessionId}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    drivers.pop();
    const [task] = [...fake.tasks.values()];
    expect(fake.callsOf('StopTask')).toEqual([
      { cluster: 'gridgate-browsers', task: task?.id, reason: 'gridgate: deleted' },
    ]);
    expect(await a.deps.sessions.inUse()).toEqual({});
    expect(await (await sameSessionVia(a.url, sessionId, '/title')).json()).toMatchObject({
      value: { error: 'invalid session id' },
    });
  });

  it('keeps a Fargate session running when the head that created it shuts down', async () => {
    const [a, b] = heads as [RunningGrid, RunningGrid];
    const driver = await chrome(a.url);
    drivers.push(driver);
    const sessionId = (await driver.getSession()).getId();
    const stopsBefore = fake.callsOf('StopTask').length;

    await a.close();

    expect(fake.callsOf('StopTask')).toHaveLength(stopsBefore);
    // The client's own head is gone; a load balancer would send its next commands to another.
    const navigated = await fetch(`${b.url}/session/${sessionId}/url`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}/` }),
    });
    expect(navigated.status).toBe(200);
    expect(await (await sameSessionVia(b.url, sessionId, '/title')).json()).toEqual({
      value: 'gridgate test page',
    });
    expect((await fetch(`${b.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(200);
    drivers.pop();
    expect(fake.callsOf('StopTask')).toHaveLength(stopsBefore + 1);
    expect(await b.deps.sessions.running()).toEqual([]);
  });
});
