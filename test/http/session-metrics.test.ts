/** What the app measures (the Metrics port): per session and per failed command, never a measurement per command. */
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeGrid, jsonRequest, newSession, startFakeGrid } from '../support/fake-grid';

const CHROME = { capabilities: { alwaysMatch: { browserName: 'chrome' } } };
let grid: FakeGrid;

afterEach(() => grid.close());

const names = (list: { name: string }[]) => list.map((entry) => entry.name);

describe('session metrics', () => {
  it('counts a created session and times its queue wait and start, by pool and browser', async () => {
    grid = startFakeGrid();
    await newSession(grid);
    expect(grid.metrics.counts).toEqual([
      { name: 'SessionsRequested', dimensions: { browser: 'chrome' }, value: undefined },
      { name: 'SessionsCreated', dimensions: { pool: 'local', browser: 'chrome' }, value: undefined },
    ]);
    expect(grid.metrics.gauges).toEqual([{ name: 'SessionFailurePercent', value: 0, dimensions: undefined }]);
    expect(grid.metrics.timings).toEqual([
      { name: 'QueueWait', ms: 0, dimensions: { pool: 'local' } },
      {
        name: 'NewSessionLatency',
        ms: 0,
        dimensions: { pool: 'local', browser: 'chrome', outcome: 'created' },
      },
    ]);
  });

  it('counts a session whose browser never started as failed at the launch stage', async () => {
    grid = startFakeGrid({ launcher: { failStarts: true } });
    const response = await grid.app.request('/session', jsonRequest('POST', CHROME));
    expect(response.status).toBe(500);
    expect(grid.metrics.counts.at(-1)).toEqual({
      name: 'SessionsFailed',
      dimensions: { browser: 'chrome', stage: 'launch', pool: undefined },
      value: undefined,
    });
    expect(grid.metrics.timings.at(-1)).toMatchObject({
      name: 'NewSessionLatency',
      dimensions: { browser: 'chrome', outcome: 'failed' },
    });
    expect(grid.metrics.gauges).toEqual([
      { name: 'SessionFailurePercent', value: 100, dimensions: undefined },
    ]);
  });

  it('counts a request that found no slot as failed in the queue', async () => {
    grid = startFakeGrid({ config: { timeouts: { queue: '0s' } } });
    await newSession(grid);
    await newSession(grid);
    const refused = await grid.app.request('/session', jsonRequest('POST', CHROME));
    expect(refused.status).toBe(500);
    expect(grid.metrics.counts.at(-1)).toMatchObject({
      name: 'SessionsFailed',
      dimensions: { stage: 'queue' },
    });
    expect(names(grid.metrics.counts).filter((name) => name === 'SessionsRequested')).toHaveLength(3);
  });

  it('counts a command that could not reach its browser, and nothing for commands that did', async () => {
    grid = startFakeGrid();
    const id = await newSession(grid);
    await grid.app.request(`/session/${id}/title`);
    expect(names(grid.metrics.counts)).not.toContain('UpstreamErrors');
    await grid.launcher.started[0]?.upstream.close();
    expect((await grid.app.request(`/session/${id}/title`)).status).toBe(404);
    expect(grid.metrics.counts).toContainEqual({
      name: 'UpstreamErrors',
      dimensions: { pool: 'local' },
      value: undefined,
    });
  });

  it("counts a session's commands once, when it ends, in one measurement", async () => {
    grid = startFakeGrid();
    const id = await newSession(grid);
    for (const path of ['title', 'url', 'title']) await grid.app.request(`/session/${id}/${path}`);
    expect(names(grid.metrics.counts)).not.toContain('Commands');
    await grid.app.request(`/session/${id}`, { method: 'DELETE' });
    await grid.app.request(`/session/${id}`, { method: 'DELETE' });
    expect(grid.metrics.counts.filter((count) => count.name === 'Commands')).toEqual([
      { name: 'Commands', dimensions: { pool: 'local' }, value: 3 },
    ]);
  });

  it("counts a cloud session's estimated cost once it ends, by pool, and logs it with its user", async () => {
    const billedFrom = Date.UTC(2025, 0, 1, 11, 59, 0); // the task's pull began a minute before the fake clock
    grid = startFakeGrid({
      launcher: { billing: { billedFrom, capacity: 'spot', vcpu: 1, memoryGb: 2, architecture: 'x86_64' } },
    });
    const id = await newSession(grid);
    await grid.app.request(`/session/${id}/title`);
    grid.clock.advance(120_000);
    await grid.app.request(`/session/${id}`, { method: 'DELETE' });
    // 180 s billed × 0.04937 $/h × 0.3 (Spot); behind a Node server no request fees.
    const [cost] = grid.metrics.counts.filter((count) => count.name === 'SessionCost');
    expect(cost?.dimensions).toEqual({ pool: 'local' });
    expect(cost?.value).toBeCloseTo((180 / 3600) * 0.04937 * 0.3, 12);
    expect(grid.logger.lines.find((line) => line.event === 'SESSION_DELETED')?.fields).toMatchObject({
      user: 'guest',
      billedSeconds: 180,
      capacity: 'spot',
    });
  });

  it('counts no cost for a session without a billed task', async () => {
    grid = startFakeGrid();
    const id = await newSession(grid);
    await grid.app.request(`/session/${id}`, { method: 'DELETE' });
    expect(names(grid.metrics.counts)).not.toContain('SessionCost');
  });
});
