/**
 * The service front door as far as this machine allows: two heads of the router image (its production build
 * laid out alone, its CMD run: support/head-image-process.ts) behind one balancer, their store shared through
 * DynamoDB (dynalite), serving an ecs pool whose ECS is the in-process fake, each task a real Selenium server
 * as docker-selenium's images run it. Puppeteer's and Playwright's clients each get a session of their own,
 * listed on the status page by whichever head answers; the user's quota holds across the heads (a fifth
 * connection waits on one head until a socket on the other closes); a Playwright client killed mid-run leaves
 * no task, Playwright server or folder behind.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DynamoSessionStore } from '../../../../functions/adapters/aws/dynamo-session-store';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../../../support/dynalite';
import { FakeEcsApi } from '../../../support/fake-ecs-api';
import { type HeadImages, startHeadImages } from '../../../support/head-image-process';
import { freePortBelowEphemeral, processGroupAlive } from '../../../support/processes';
import {
  killedMidRun,
  playwrightServers,
  playwrightVisit,
  puppeteerVisit,
} from '../../../support/socket-session-clients';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { until } from '../../../support/until';
import { opened } from '../../../support/websocket-upgrade';

// A JVM starts in each task, five at once in the quota test: slow on a loaded machine.
const TEST_MS = 300_000;

let dynamo: DynaliteServer;
let table: SessionTableUnderTest;
let ecs: FakeEcsApi;
let site: TestPageServer;
let front: HeadImages;
let store: DynamoSessionStore;
// Empty: the image carries the playwright-core its clients of gridgate's own version need.
const playwrightCache = mkdtempSync(join(tmpdir(), 'gg-heads-playwright-'));
const ws = () => front.balancerUrl.replace(/^http/, 'ws');
const headWs = (index: number) => (front.heads[index] as { headUrl: string }).headUrl.replace(/^http/, 'ws');

beforeAll(async () => {
  [dynamo, site, ecs] = await Promise.all([
    startDynalite(),
    startTestPageServer(),
    FakeEcsApi.start({ containerPort: await freePortBelowEphemeral(), browser: 'selenium-server' }),
  ]);
  table = await dynamo.createSessionTable();
  store = new DynamoSessionStore({ client: table.client, table: table.table });
  front = await startHeadImages(
    2,
    (publicUrl) => ({
      port: 0,
      host: '127.0.0.1',
      publicUrl,
      // One process a head: the machine's two cores are the tasks' too.
      workers: 1,
      store: { kind: 'dynamodb', table: table.table },
      browsers: { chrome: { defaultVersion: 'stable', versions: { stable: { pools: ['fargate'] } } } },
      pools: { fargate: ecs.poolSettings() },
      users: { guest: { maxSessions: 4 } },
      timeouts: { newSession: '180s' },
      playwrightCache,
    }),
    {
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_ECS: ecs.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_EC2_METADATA_DISABLED: 'true',
    },
  );
}, 120_000);

afterAll(async () => {
  await front?.close();
  // Whatever a failed test left: the fake stops its tasks' processes.
  await ecs?.close();
  rmSync(playwrightCache, { recursive: true, force: true });
  // The table first: its deletion goes to dynalite.
  await table?.close();
  await Promise.all([dynamo?.close(), site?.close()]);
});

afterEach(async () => {
  await until(async () => (await store.running()).length === 0, 'every session ended', { timeoutMs: 60_000 });
  // The slot is given back once the task is stopped, after the session's record ends.
  await until(async () => Object.keys(await store.inUse()).length === 0, 'every slot free');
  for (const task of ecs.tasks.values()) {
    await until(() => !processGroupAlive(task.pid), `task ${task.id} stopped`, { timeoutMs: 60_000 });
    expect(task.desiredStatus).toBe('STOPPED');
  }
  await until(() => headsPlaywrightServers().length === 0, 'no Playwright server left');
  expect(headsPlaywrightFolders()).toEqual([]);
});

/** The Playwright servers the heads run now. */
function headsPlaywrightServers(): string[] {
  return front.heads.flatMap(({ child }) => playwrightServers(child.pid as number));
}

/** The folders the heads' Playwright servers of the tasks' browsers keep now. */
function headsPlaywrightFolders(): string[] {
  const prefixes = front.heads.map(({ child }) => `gridgate-session-${child.pid}-playwright-`);
  return readdirSync(tmpdir()).filter((name) => prefixes.some((prefix) => name.startsWith(prefix)));
}

interface ListedSession {
  user: string;
  pool: string;
  name?: string;
  protocol: string;
}

/** The running sessions each head's status page lists (its API, as the page reads it). */
async function listedByEachHead(): Promise<ListedSession[][]> {
  return Promise.all(
    front.heads.map(async ({ headUrl }) => {
      const overview = (await (await fetch(`${headUrl}/ui/api/overview`)).json()) as {
        sessions: ListedSession[];
      };
      return overview.sessions;
    }),
  );
}

async function waitingOn(headUrl: string): Promise<number> {
  const status = (await (await fetch(`${headUrl}/status`)).json()) as { value: { waiting: number } };
  return status.value.waiting;
}

describe('Playwright and CDP clients through two heads of the image, on an ecs pool', {
  timeout: TEST_MS,
}, () => {
  it("serves Puppeteer's connect with a task's browser, listed by both heads", async () => {
    const title = await puppeteerVisit(`${ws()}/devtools/chrome?name=heads-puppeteer`, site.url, async () => {
      const expected = { user: 'guest', pool: 'fargate', name: 'heads-puppeteer', protocol: 'cdp' };
      expect(await listedByEachHead()).toEqual([
        [expect.objectContaining(expected)],
        [expect.objectContaining(expected)],
      ]);
    });
    expect(title).toBe('gridgate test page');
    expect(ecs.callsOf('RunTask')).toHaveLength(1);
  });

  it("serves Playwright's chromium.connect with a task's browser, listed by both heads", async () => {
    const { title, screenshot } = await playwrightVisit(
      `${ws()}/playwright/chromium?name=heads-playwright`,
      site.url,
      async () => {
        const expected = { user: 'guest', pool: 'fargate', name: 'heads-playwright', protocol: 'playwright' };
        expect(await listedByEachHead()).toEqual([
          [expect.objectContaining(expected)],
          [expect.objectContaining(expected)],
        ]);
      },
    );
    expect(title).toBe('gridgate test page');
    // Well over 128 KB in one message (API Gateway's WebSocket limit), which the heads carry.
    expect(screenshot.subarray(1, 4).toString()).toBe('PNG');
  });

  it('queues a fifth connection on one head while four are open across both, and serves it once one closes', async () => {
    const four = [0, 0, 1, 1].map(
      (head, i) => new WebSocket(`${headWs(head)}/devtools/chrome?name=held-${i}`),
    );
    try {
      await Promise.all(four.map(opened));
      expect(Object.values(await store.inUse()).reduce((sum, count) => sum + count, 0)).toBe(4);

      let fifthOpen = false;
      const fifth = chromium.connect(`${headWs(1)}/playwright/chromium?name=fifth`).then((browser) => {
        fifthOpen = true;
        return browser;
      });
      const headUrl = (front.heads[1] as { headUrl: string }).headUrl;
      await until(async () => (await waitingOn(headUrl)) === 1, 'the fifth connection waits in the queue');
      expect(fifthOpen).toBe(false);
      expect(await store.running()).toHaveLength(4);

      // A socket on the other head closes: its slot, freed in the shared store, goes to the fifth.
      four[0]?.close();
      const browser = await fifth;
      try {
        const page = await browser.newPage();
        await page.goto(site.url);
        expect(await page.title()).toBe('gridgate test page');
        expect((await store.running()).map((session) => session.name)).toContain('fifth');
      } finally {
        await browser.close();
      }
    } finally {
      for (const socket of four) socket.close();
    }
    expect(ecs.callsOf('RunTask')).toHaveLength(ecs.tasks.size);
  });

  it('ends the session and stops its task when a Playwright client is killed mid-run', async () => {
    const before = ecs.tasks.size;
    await killedMidRun(`${ws()}/playwright/chromium?name=killed`, site.url, async () => {
      expect((await store.running()).map((session) => session.name)).toEqual(['killed']);
      expect(headsPlaywrightServers().length).toBeGreaterThan(0);
    });
    expect(ecs.tasks.size).toBe(before + 1);
    // afterEach: no session, slot, task, Playwright server or folder left; every task stopped.
  });
});
