/**
 * A real Prometheus scraping a running grid (the Node server in front of a fake W3C hub on loopback):
 * after a few sessions, a refused one and an orphan left by a killed server, its queries see them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { PROFILE_PREFIX } from '../../functions/pools/local/chromedriver-launcher';
import { eventually } from '../load/served-fake-grid';
import { CollectingLogger, FakeUpstream } from '../support/fakes';
import { type PrometheusServer, startPrometheus } from '../support/prometheus-server';

const SESSIONS = 3;
const COMMANDS_EACH = 2;
let hub: FakeUpstream;
let grid: RunningGrid;
let prometheus: PrometheusServer;
let scratch: string;

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const chrome = (options: Record<string, unknown> = {}) => ({
  capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': options } },
});

beforeAll(async () => {
  // A profile a killed gridgate left in this grid's temporary directory: the start-up sweep removes it.
  scratch = mkdtempSync(join(tmpdir(), 'gridgate-prometheus-e2e-'));
  const deadPid = Number(
    spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout,
  );
  mkdirSync(join(scratch, `${PROFILE_PREFIX}${deadPid}-e2e`));
  vi.stubEnv('TMPDIR', scratch);
  hub = await FakeUpstream.start();
  const config = parseConfig(
    {
      port: 0,
      host: '127.0.0.1',
      browsers: { chrome: { versions: { '156': { pools: ['hub'] } } } },
      pools: { hub: { kind: 'hub', url: `http://${hub.address}`, maxSessions: SESSIONS } },
    },
    { builtInBrowserVersion: 'unused' },
  );
  grid = await startGrid(config, Buffer.alloc(32, 7), new CollectingLogger());
  vi.unstubAllEnvs();
  prometheus = await startPrometheus(new URL(grid.url).host);
}, 60_000);

afterAll(async () => {
  await prometheus?.stop();
  await grid?.close();
  await hub?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('a real Prometheus scraping gridgate', () => {
  it('passes promtool check metrics on a real scrape', async () => {
    const text = await (await fetch(`${grid.url}/metrics`)).text();
    expect(execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })).toBe('');
  });

  it('loads the shipped alert rules, which promtool accepts', async () => {
    expect(
      execFileSync(
        'promtool',
        ['check', 'rules', join(import.meta.dirname, '../../docs/prometheus-alerts.yml')],
        { encoding: 'utf8' },
      ),
    ).toContain('SUCCESS: 5 rules found');
    await eventually(async () => {
      const rules = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as {
        data: { groups: { rules: { name: string; health: string }[] }[] };
      };
      const loaded = rules.data.groups.flatMap((group) => group.rules);
      expect(loaded.map((rule) => rule.name)).toContain('GridgateNoCapacity');
      expect(loaded.every((rule) => rule.health === 'ok')).toBe(true);
    }, 30_000);
  });

  it('sees the sessions, their commands, a refused request, the levels and the orphan in its queries', async () => {
    await prometheus.targetsUp();
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const answer = (await (await post(`${grid.url}/session`, chrome())).json()) as {
        value: { sessionId: string };
      };
      ids.push(answer.value.sessionId);
    }
    // Every slot is taken: a request that will not wait is refused in the queue.
    expect((await post(`${grid.url}/session`, chrome({ queueTimeout: '0s' }))).status).toBe(500);
    await eventually(async () => {
      expect(await prometheus.query('gridgate_sessions_active{pool="hub"}')).toMatchObject([
        { value: SESSIONS },
      ]);
    }, 30_000);
    for (const id of ids) {
      for (let i = 0; i < COMMANDS_EACH; i++) await fetch(`${grid.url}/session/${id}/title`);
      await fetch(`${grid.url}/session/${id}`, { method: 'DELETE' });
    }

    const value = async (promql: string) => (await prometheus.query(promql)).map((sample) => sample.value);
    await eventually(async () => {
      expect(await value('gridgate_commands_total{pool="hub"}')).toEqual([SESSIONS * COMMANDS_EACH]);
      expect(await value('gridgate_sessions_active{pool="hub"}')).toEqual([0]);
    }, 30_000);
    expect(await value('sum(gridgate_sessions_requested_total)')).toEqual([SESSIONS + 1]);
    expect(await value('gridgate_sessions_created_total{pool="hub",browser="chrome"}')).toEqual([SESSIONS]);
    expect(await value('gridgate_sessions_failed_total{stage="queue"}')).toEqual([1]);
    expect(await value('gridgate_new_session_seconds_count{outcome="created",pool="hub"}')).toEqual([
      SESSIONS,
    ]);
    expect(await value('gridgate_queue_wait_seconds_count{pool="hub"}')).toEqual([SESSIONS]);
    expect(await value('gridgate_pool_capacity{pool="hub"}')).toEqual([SESSIONS]);
    expect(await value('gridgate_queue_waiting{pool="hub"}')).toEqual([0]);
    expect(await value('gridgate_orphans_reaped_total{reason="profile left behind"}')).toEqual([1]);
    const [p50] = await value(
      'histogram_quantile(0.5, sum by (le) (gridgate_new_session_seconds_bucket{outcome="created"}))',
    );
    expect(p50).toBeGreaterThan(0);
    expect(await value('up{job="gridgate"}')).toEqual([1]);
    expect(await value('count(process_cpu_seconds_total{job="gridgate"})')).toEqual([1]);
  }, 90_000);

  it('answers every query of the shipped Grafana dashboard, with data where the grid made some', async () => {
    const dashboard = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../docs/grafana-dashboard.json'), 'utf8'),
    ) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    // What Grafana puts in for its variables: the rate window and the job picked.
    const asGrafanaSends = (expr: string) =>
      expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', 'gridgate');
    const emptyPanels = async () => {
      const empty: string[] = [];
      for (const panel of dashboard.panels) {
        const answers = await Promise.all(
          panel.targets.map((target) => prometheus.query(asGrafanaSends(target.expr))),
        );
        if (answers.every((samples) => samples.length === 0)) empty.push(panel.title);
      }
      return empty;
    };
    // Every query parses and runs; a rate needs two scrapes of its series. The grid had no upstream error.
    await eventually(async () => {
      expect(await emptyPanels()).toEqual(['Upstream errors per second, per pool']);
    }, 30_000);
  }, 60_000);
});
