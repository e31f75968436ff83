/** GET /metrics: the Prometheus text of what the app measured, answered without credentials like /status. */
import { afterEach, describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../functions/adapters/prometheus/prometheus-metrics';
import { reportGridGauges } from '../../functions/core/pool-gauges';
import { createApp } from '../../functions/http/create-app';
import { type FakeGrid, jsonRequest, newSession, startFakeGrid, W3C_CHROME } from '../support/fake-grid';

let grid: FakeGrid;
afterEach(() => grid.close());

/** The fake grid's app again, measuring into Prometheus and serving it at /metrics. */
function withPrometheus(config: Record<string, unknown> = {}) {
  grid = startFakeGrid({ config });
  const prometheus = new PrometheusMetrics();
  grid.deps.metrics = prometheus;
  prometheus.onScrape((into) => reportGridGauges(grid.deps, into));
  return createApp(grid.deps, { agent: grid.agent, metricsPage: prometheus });
}

describe('GET /metrics', () => {
  it('answers without credentials while everything else asks for them', async () => {
    const app = withPrometheus({ guest: null });
    const response = await app.request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await response.text()).toContain('# TYPE gridgate_sessions_active gauge');
    expect((await app.request('/session', jsonRequest('POST', W3C_CHROME))).status).toBe(401);
  });

  it('reports sessions, the levels of every pool and the commands of ended sessions, with no session or user', async () => {
    const app = withPrometheus({
      pools: { local: { kind: 'local', maxSessions: 2 }, spare: { kind: 'local', maxSessions: 7 } },
    });
    const created = await app.request('/session', jsonRequest('POST', W3C_CHROME));
    const id = ((await created.json()) as { value: { sessionId: string } }).value.sessionId;
    await app.request(`/session/${id}/title`);
    await app.request(`/session/${id}/url`);
    let text = await (await app.request('/metrics')).text();
    expect(text).toContain('gridgate_sessions_requested_total{browser="chrome"} 1');
    expect(text).toContain('gridgate_sessions_created_total{pool="local",browser="chrome"} 1');
    expect(text).toContain('gridgate_sessions_active{pool="local"} 1');
    expect(text).toContain('gridgate_sessions_active{pool="spare"} 0');
    expect(text).toContain('gridgate_pool_capacity{pool="spare"} 7');
    expect(text).toContain('gridgate_queue_waiting{pool="local"} 0');
    expect(text).not.toContain('gridgate_commands_total{');

    await app.request(`/session/${id}`, { method: 'DELETE' });
    text = await (await app.request('/metrics')).text();
    expect(text).toContain('gridgate_commands_total{pool="local"} 2');
    expect(text).toContain('gridgate_sessions_active{pool="local"} 0');
    expect(text).not.toContain(id);
    expect(text).not.toContain('guest');
  });

  it('is an unknown command where nothing serves it (the Lambda router)', async () => {
    grid = startFakeGrid();
    await newSession(grid);
    const response = await grid.app.request('/metrics');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { value: { error: string } }).value.error).toBe('unknown command');
  });
});
