/**
 * End to end on an ecs pool (the fake ECS API, each task a real Selenium server as docker-selenium's images
 * run it): Puppeteer and Playwright clients, each a session of its own, reach the task's browser through the
 * session's se:cdp, and leave no task, Playwright server or folder behind, also when the client is killed
 * mid-run. A client asking enableVideo=true is refused before any task starts: the pool's tasks run no
 * recorder. Tasks of chromedriver alone offer no se:cdp: a Playwright client is refused on the upgrade, its
 * task stopped.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import { processGroupAlive } from '../../../support/processes';
import {
  killedMidRun,
  playwrightFolders,
  playwrightServers,
  playwrightVisit,
  puppeteerVisit,
} from '../../../support/socket-session-clients';
import { until } from '../../../support/until';
import { upgradeOutcome } from '../../../support/websocket-upgrade';

// A JVM starts in each task: slower than chromedriver, all the more on a loaded machine.
const TEST_MS = 240_000;
const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--disable-dev-shm-usage']
  .map((arg) => `arg=${encodeURIComponent(arg)}`)
  .join('&');

let fargate: FakeFargateGrid;
const wsUrl = () => fargate.grid.url.replace(/^http/, 'ws');

beforeAll(async () => {
  fargate = await startFakeFargateGrid({
    browser: 'selenium-server',
    config: { timeouts: { newSession: '180s' } },
    webSockets: true,
  });
});

afterAll(() => fargate?.close());

afterEach(async () => {
  const { grid, fake } = fargate;
  await until(async () => (await grid.deps.sessions.running()).length === 0, 'every session ended');
  for (const task of fake.tasks.values()) {
    await until(() => !processGroupAlive(task.pid), `task ${task.id} stopped`, { timeoutMs: 60_000 });
  }
  await until(() => fake.callsOf('StopTask').length === fake.tasks.size, 'every task stopped by StopTask');
  await until(() => playwrightServers(process.pid).length === 0, 'no Playwright server left');
  expect(playwrightFolders()).toEqual([]);
});

describe('Playwright and CDP clients on an ecs pool', { timeout: TEST_MS }, () => {
  it("serves Puppeteer's connect with the task's browser", async () => {
    const title = await puppeteerVisit(
      `${wsUrl()}/devtools/chrome?name=ecs-puppeteer`,
      fargate.site.url,
      async () => {
        const sessions = await fargate.grid.deps.sessions.running();
        expect(sessions.map((session) => [session.pool, session.name])).toEqual([
          ['fargate', 'ecs-puppeteer'],
        ]);
      },
    );
    expect(title).toBe('gridgate test page');
  });

  it("serves Playwright's chromium.connect with the task's browser", async () => {
    const { title, screenshot } = await playwrightVisit(`${wsUrl()}/playwright/chromium`, fargate.site.url);
    expect(title).toBe('gridgate test page');
    expect(screenshot.subarray(1, 4).toString()).toBe('PNG');
  });

  it('refuses enableVideo=true on the upgrade, its tasks running no recorder, before any task starts', async () => {
    const tasks = fargate.fake.callsOf('RunTask').length;
    const outcome = await upgradeOutcome(
      new WebSocket(`${wsUrl()}/playwright/chromium?enableVideo=true`, {
        headers: { 'user-agent': 'Playwright/1.65.1 (x64; debian 12) node/20.19' },
      }),
    );
    if (!('status' in outcome)) throw new Error('the socket opened');
    expect(outcome.status).toBe(500);
    expect(JSON.parse(outcome.body).value).toMatchObject({
      error: 'session not created',
      message: expect.stringContaining('the pool fargate records no video'),
    });
    expect(fargate.fake.callsOf('RunTask')).toHaveLength(tasks);
  });

  it('ends the session and stops its task when the client is killed mid-run', async () => {
    await killedMidRun(`${wsUrl()}/playwright/chromium`, fargate.site.url, async () => {
      expect(await fargate.grid.deps.sessions.running()).toHaveLength(1);
    });
    // afterEach: no session, task, Playwright server or folder left, every task stopped by StopTask.
  });
});

describe('an ecs pool whose tasks run chromedriver alone', { timeout: TEST_MS }, () => {
  it('refuses a Playwright client on the upgrade, naming the pool, its task stopped', async () => {
    const drivers = await startFakeFargateGrid({ webSockets: true });
    try {
      const outcome = await upgradeOutcome(
        // Moon's `arg`: what a bare chromedriver's Chromium needs on this display-less machine, as root.
        new WebSocket(`${drivers.grid.url.replace(/^http/, 'ws')}/playwright/chromium?${CHROMIUM_ARGS}`, {
          headers: { 'user-agent': 'Playwright/1.65.1 (x64; debian 12) node/20.19' },
        }),
      );
      if (!('status' in outcome)) throw new Error('the socket opened');
      expect(outcome.status).toBe(500);
      expect(JSON.parse(outcome.body).value).toMatchObject({
        error: 'session not created',
        message: expect.stringMatching(/the pool fargate cannot serve Playwright clients: .*no se:cdp/),
      });
      expect(drivers.fake.callsOf('RunTask')).toHaveLength(1);
      await until(async () => (await drivers.grid.deps.sessions.running()).length === 0, 'its session ended');
      await until(() => drivers.fake.callsOf('StopTask').length === 1, 'its task stopped');
      expect(playwrightServers(process.pid)).toEqual([]);
    } finally {
      await drivers.close();
    }
  });
});
