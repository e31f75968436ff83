/**
 * A Spot pool's session when Fargate Spot does not deliver, on the fake ECS API with real Chromium and a
 * real client: the account's Spot vCPU quota refused at RunTask, and a Spot task stalled in PROVISIONING
 * (aws/containers-roadmap #880, #852). Either way the session starts on on-demand Fargate, the stalled task
 * is stopped, and the session's record says which happened. The launcher's clock moves with its waits, so
 * the 45 s a stall is given pass at once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SPOT_PROVISIONING_LIMIT_MS } from '../../../../functions/pools/ecs/ecs-spot-stall';
import { chromeSession, headlessChromeOptions } from '../../../support/chrome-sessions';
import type { FakeEcsApi, FakeTask } from '../../../support/fake-ecs-api';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import { FixedClock, RecordingMetrics } from '../../../support/fakes';
import { processGroupAlive } from '../../../support/processes';
import type { ServedApp } from '../../../support/served-app';

const TEST_MS = 90_000;

let fargate: FakeFargateGrid | undefined;
let fake: FakeEcsApi;
let grid: ServedApp;
const clock = new FixedClock(Date.now());
const metrics = new RecordingMetrics();

beforeAll(async () => {
  fargate = await startFakeFargateGrid({
    launcher: {
      metrics,
      clock,
      // The fake clock moves by each wait; a few real milliseconds keep the polls from spinning.
      sleep: async (ms, signal) => {
        await clock.sleep(ms, signal);
        await new Promise((resolve) => setTimeout(resolve, 10));
      },
    },
  });
  ({ fake, grid } = fargate);
});

afterAll(() => fargate?.close());

beforeEach(() => {
  fake.spotQuotaReached = false;
  fake.spotStalls = false;
});

/** Opens a session, reads its record while it runs, and quits; the tasks RunTask started for it. */
async function sessionThroughFargate() {
  const before = new Set(fake.tasks.keys());
  const runTasks = fake.callsOf('RunTask').length;
  const driver = await chromeSession(grid.url, headlessChromeOptions());
  try {
    const sessionId = (await driver.getSession()).getId();
    const check = grid.deps.tokens.verify(sessionId, 'guest');
    if (!check.ok) throw new Error('the session ID did not verify');
    const record = await grid.deps.sessions.get(check.claims.key);
    const tasks = [...fake.tasks.values()].filter((task) => !before.has(task.id));
    const providers = fake
      .callsOf('RunTask')
      .slice(runTasks)
      .map((input) => input.capacityProviderStrategy[0].capacityProvider);
    return { record, tasks, providers, handle: check.claims.handle };
  } finally {
    await driver.quit();
  }
}

describe('a Spot pool when Fargate Spot does not deliver', { timeout: TEST_MS }, () => {
  it('starts on on-demand Fargate when RunTask refuses Spot for the account’s vCPU quota, and says so', async () => {
    fake.spotQuotaReached = true;
    const { record, tasks, providers, handle } = await sessionThroughFargate();
    expect(providers).toEqual(['FARGATE_SPOT', 'FARGATE']);
    expect(tasks.map((task) => task.capacityProvider)).toEqual(['FARGATE']);
    expect(handle).toBe(tasks[0]?.id);
    expect(record?.billing).toMatchObject({ capacity: 'on-demand', spotFallback: 'quota' });
  });

  it('stops a Spot task stalled in PROVISIONING and starts the session on on-demand Fargate', async () => {
    fake.spotStalls = true;
    const started = clock.now();
    const { record, tasks, providers, handle } = await sessionThroughFargate();
    expect(providers).toEqual(['FARGATE_SPOT', 'FARGATE']);
    const [stalled, onDemand] = tasks as [FakeTask, FakeTask];
    expect(stalled.capacityProvider).toBe('FARGATE_SPOT');
    expect(stalled.desiredStatus).toBe('STOPPED');
    expect(stalled.stoppedReason).toBe('gridgate: Spot task stalled in PROVISIONING');
    expect(fake.callsOf('StopTask')).toContainEqual({
      cluster: 'gridgate-browsers',
      task: stalled.arn,
      reason: 'gridgate: Spot task stalled in PROVISIONING',
    });
    expect(onDemand.capacityProvider).toBe('FARGATE');
    expect(handle).toBe(onDemand.id);
    // Given the bounded wait, not the whole new-session budget.
    expect(clock.now() - started).toBeGreaterThan(SPOT_PROVISIONING_LIMIT_MS);
    expect(record?.billing).toMatchObject({ capacity: 'on-demand', spotFallback: 'stalled' });
    await stalled.gone;
    expect(processGroupAlive(stalled.pid)).toBe(false);
  });

  it('leaves a session Spot delivers on Spot, with no fallback in its record', async () => {
    const { record, providers } = await sessionThroughFargate();
    expect(providers).toEqual(['FARGATE_SPOT']);
    expect(record?.billing?.capacity).toBe('spot');
    expect(record?.billing).not.toHaveProperty('spotFallback');
  });
});
