/**
 * End to end through the ECS path: the real app with an EcsLauncher whose real ECSClient talks to an
 * in-process ECS API (test/support/fake-ecs-api.ts) that runs each "Fargate task" as a real chromedriver
 * and Chromium on a loopback IP of its own; the npm selenium-webdriver client drives it.
 */
import { By } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MetricName, noMetrics } from '../../../../functions/core/ports';
import { chromeSession, headlessChromeOptions } from '../../../support/chrome-sessions';
import type { FakeEcsApi, FakeTask } from '../../../support/fake-ecs-api';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import type { CollectingLogger } from '../../../support/fakes';
import { portFree, processGroupAlive } from '../../../support/processes';
import type { ServedApp } from '../../../support/served-app';
import type { TestPageServer } from '../../../support/test-page-server';
import { eventually, until } from '../../../support/until';

const TEST_MS = 60_000;

let fargate: FakeFargateGrid | undefined;
let fake: FakeEcsApi;
let site: TestPageServer;
let grid: ServedApp;
let logger: CollectingLogger;
const fallbacks: MetricName[] = [];

beforeAll(async () => {
  const metrics = { ...noMetrics, count: (name: MetricName) => void fallbacks.push(name) };
  fargate = await startFakeFargateGrid({ launcher: { metrics } });
  ({ fake, site, grid, logger } = fargate);
});

afterAll(() => fargate?.close());

function newTask(before: Set<string>): FakeTask | undefined {
  return [...fake.tasks.values()].find((t) => !before.has(t.id));
}

/** Opens a session, reads the test page's title and quits; returns the task the session ran in. */
async function titleThroughFargate(): Promise<{ title: string; task: FakeTask; sessionId: string }> {
  const before = new Set(fake.tasks.keys());
  const driver = await chromeSession(grid.url, headlessChromeOptions());
  const task = newTask(before) as FakeTask;
  const sessionId = (await driver.getSession()).getId();
  try {
    expect(task.lastStatus).toBe('RUNNING');
    await driver.get(`${site.url}/`);
    expect(await driver.findElement(By.id('heading')).getText()).toBe('Hello from 127.0.0.1');
    return { title: await driver.getTitle(), task, sessionId };
  } finally {
    await driver.quit();
  }
}

describe('a session on a (fake) Fargate task', { timeout: TEST_MS }, () => {
  it('runs on Fargate Spot, drives Chromium through the task address and stops the task on quit', async () => {
    const { title, task, sessionId } = await titleThroughFargate();

    expect(title).toBe('gridgate test page');
    const check = grid.deps.tokens.verify(sessionId, 'guest');
    // The session ID carries the task's address and its bare task ID, packed.
    expect(check.ok && check.claims.handle).toBe(task.id);
    expect(check.ok && check.claims.address).toBe(`127.0.0.2:${fake.containerPort}`);
    const [runTask] = fake.callsOf('RunTask');
    expect(runTask.capacityProviderStrategy).toEqual([{ capacityProvider: 'FARGATE_SPOT', weight: 1 }]);
    expect(runTask.startedBy).toBe('gridgate');
    expect(runTask.overrides.containerOverrides).toEqual([
      { name: 'browser', environment: [{ name: 'SE_NODE_SESSION_TIMEOUT', value: '300' }] },
    ]);
    expect(task.ip).toBe('127.0.0.2');
    // DELETE is answered after the launcher stopped the task.
    expect(fake.callsOf('StopTask')).toEqual([
      { cluster: 'gridgate-browsers', task: task.id, reason: 'gridgate: deleted' },
    ]);
    expect(task.desiredStatus).toBe('STOPPED');
    await task.gone;
    expect(processGroupAlive(task.pid)).toBe(false);
    expect(fake.callsOf('ListTasks')).toEqual([]);
    const events = logger.lines.map((line) => line.event);
    expect(events).toEqual(['SESSION_REQUESTED', 'SESSION_CREATED', 'SESSION_DELETED']);
  });

  it('falls back to on-demand Fargate when Spot has no capacity', async () => {
    fake.spotCapacity = false;
    const calls = fake.callsOf('RunTask').length;

    const { title, task } = await titleThroughFargate();

    expect(title).toBe('gridgate test page');
    const strategies = fake
      .callsOf('RunTask')
      .slice(calls)
      .map((input) => input.capacityProviderStrategy[0].capacityProvider);
    expect(strategies).toEqual(['FARGATE_SPOT', 'FARGATE']);
    expect(task.capacityProvider).toBe('FARGATE');
    expect(fallbacks).toEqual(['SpotFallbacks']);
    await task.gone;
    expect(processGroupAlive(task.pid)).toBe(false);
  });

  it('stops the task when the client goes away while it is starting', async () => {
    // Every fake task serves on the same loopback port: the earlier tests' last one must have let it go,
    // or this task's chromedriver cannot bind it and the session fails before the client leaves.
    await until(() => portFree(fake.containerPort), 'the container port is free', { timeoutMs: 10_000 });
    const before = new Set(fake.tasks.keys());
    const client = new AbortController();
    const request = fetch(`${grid.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
      signal: client.signal,
    }).catch((error: unknown) => error);
    const task = await until(
      () => {
        const started = newTask(before);
        if (!started || started.describes === 0) throw new Error('no task polled yet');
        return started;
      },
      'the new task has been polled',
      { timeoutMs: 10_000, intervalMs: 20 },
    );

    client.abort();

    expect(await request).toBeInstanceOf(Error);
    await eventually(
      () =>
        expect(fake.callsOf('StopTask')).toContainEqual({
          cluster: 'gridgate-browsers',
          task: task.arn,
          reason: 'gridgate: launch aborted',
        }),
      10_000,
      50,
    );
    await task.gone;
    expect(processGroupAlive(task.pid)).toBe(false);
    // Logged once the launch has unwound, which may be a moment after the task was stopped.
    await eventually(
      () => expect(logger.fieldsOf('SESSION_FAILED').at(-1)?.reason).toMatch(/client went away/),
      5000,
      20,
    );
  });
});
