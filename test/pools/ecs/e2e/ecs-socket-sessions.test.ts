/**
 * End to end on an ecs pool (the fake ECS API, each task a real Selenium server as docker-selenium's images
 * run it): Puppeteer and Playwright clients, each a session of its own, reach the task's browser through the
 * session's se:cdp, and leave no task, Playwright server or folder behind.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import { processGroupAlive } from '../../../support/processes';
import {
  playwrightFolders,
  playwrightServers,
  playwrightVisit,
  puppeteerVisit,
} from '../../../support/socket-session-clients';
import { until } from '../../../support/until';

// A JVM starts in each task: slower than chromedriver, all the more on a loaded machine.
const TEST_MS = 240_000;

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
  await until(() => playwrightServers().length === 0, 'no Playwright server left');
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
});
