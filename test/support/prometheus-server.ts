/**
 * A real Prometheus server (Debian's `prometheus`) for a test: loopback only, storage in a temporary
 * directory, a free port, scraping one gridgate every second with the config docs/metrics.md shows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually } from '../load/served-fake-grid';
import { freePort } from './processes';

export const ALERT_RULES = resolve(import.meta.dirname, '../../docs/prometheus-alerts.yml');

/** One series of an instant query's answer. */
export interface QuerySample {
  metric: Record<string, string>;
  value: number;
}

export interface PrometheusServer {
  url: string;
  /** An instant query (`/api/v1/query`); throws on an error answer. */
  query(promql: string): Promise<QuerySample[]>;
  /** Waits until every target has been scraped and is up. */
  targetsUp(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The scrape config docs/metrics.md shows, run as written: only the target, the intervals (1 s, so a
 * test need not wait) and the rules file's path (absolute) are put in.
 */
export function documentedConfig(target: string): string {
  const docs = readFileSync(resolve(import.meta.dirname, '../../docs/metrics.md'), 'utf8');
  const example = /```yaml\n# prometheus\.yml\n([\s\S]*?)```/.exec(docs)?.[1];
  if (!example) throw new Error('docs/metrics.md has no prometheus.yml example');
  return example
    .replace("'localhost:4444'", `'${target}'`)
    .replaceAll('15s', '1s')
    .replace('- prometheus-alerts.yml', `- ${ALERT_RULES}`);
}

export async function startPrometheus(target: string): Promise<PrometheusServer> {
  const directory = mkdtempSync(join(tmpdir(), 'gridgate-prometheus-'));
  const config = join(directory, 'prometheus.yml');
  writeFileSync(config, documentedConfig(target));
  const port = await freePort();
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(directory, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const exited = new Promise((done) => child.once('exit', done));
  const url = `http://127.0.0.1:${port}`;
  const api = async (path: string) => {
    const answer = (await (await fetch(`${url}${path}`)).json()) as {
      status: string;
      data: unknown;
      error?: string;
    };
    if (answer.status !== 'success') throw new Error(`prometheus ${path}: ${answer.error}`);
    return answer.data;
  };
  try {
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`prometheus exited: ${log}`);
      if (!(await fetch(`${url}/-/ready`)).ok) throw new Error('prometheus not ready');
    }, 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    async query(promql) {
      const data = (await api(`/api/v1/query?query=${encodeURIComponent(promql)}`)) as {
        result: { metric: Record<string, string>; value: [number, string] }[];
      };
      return data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
    },
    async targetsUp() {
      await eventually(async () => {
        const data = (await api('/api/v1/targets')) as {
          activeTargets: { health: string; lastError: string }[];
        };
        if (data.activeTargets.length !== 1 || data.activeTargets.some((t) => t.health !== 'up')) {
          throw new Error(`targets not up: ${JSON.stringify(data.activeTargets)}`);
        }
      }, 30_000);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
