/**
 * The Node server with worker processes (`workers` > 1): this primary process keeps the grid (slot
 * ledger, launchers and their browsers, warm browsers, sweeps, recordings) and serves, on a Unix socket of
 * its own, the requests its workers relay; the workers listen on the server's port and serve commands
 * themselves (grid-worker.ts). It passes its config on at every reload, tells every worker of each session
 * that ended, gathers their activity and their metrics, and replaces a worker that dies.
 */
import cluster, { type Worker } from 'node:cluster';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToPrimary, ToWorker } from '../adapters/cluster/cluster-messages';
import { toWire } from '../adapters/cluster/cluster-messages';
import { answerPortCall, applyActivity } from '../adapters/cluster/worker-calls';
import { HtpasswdUserDirectory } from '../adapters/htpasswd/htpasswd-user-directory';
import { type MetricsSnapshot, PrometheusMetrics } from '../adapters/prometheus/prometheus-metrics';
import { type Config, DEFAULT_WORKERS_CAP, type PoolConfig } from '../core/config';
import { EndedSessions } from '../core/ended-sessions';
import type { Logger } from '../core/ports';
import { configState } from '../core/swap-config';
import type { RequestCounter } from '../http/grid-info';
import { PRIMARY_DIRECTORY_PREFIX } from '../pools/local/orphan-sweep';
import { ClusterMetricsPage } from '../servers/node/cluster-metrics';
import type { ReloadTrigger } from './config-reloader';
import { reachNotice } from './reach-notice';
import { localUrlHost, type RunningGrid, type StartOptions, startGrid } from './start-grid';

// A worker that does not send its series within this is left out of that scrape (it may be dying).
const METRICS_WAIT_MS = 2000;
// How long the shutdown waits for workers to exit before it kills them.
const WORKER_EXIT_WAIT_MS = 5000;

/** Workers when the config names none: one per core this machine offers, within DEFAULT_WORKERS_CAP. */
export function defaultWorkers(): number {
  return Math.min(availableParallelism(), DEFAULT_WORKERS_CAP);
}

export interface ServerWithWorkers {
  url: string;
  grid: RunningGrid;
  /** The workers' process IDs now. */
  workerPids(): number[];
  reload(trigger?: ReloadTrigger): Promise<boolean>;
  /** Stops the workers, then ends every session and stops every browser as one process would. */
  close(): Promise<void>;
}

export async function startGridWithWorkers(
  config: Config,
  secret: Buffer,
  logger: Logger,
  workerCount: number,
  options: StartOptions = {},
): Promise<ServerWithWorkers> {
  // mkdtemp makes it 0700: only this user's processes reach the socket, and the client address it trusts.
  // Named after this process, so a start after it was killed removes it (pools/local/orphan-sweep.ts).
  const dir = mkdtempSync(join(tmpdir(), `${PRIMARY_DIRECTORY_PREFIX}${process.pid}-`));
  const socketPath = join(dir, 'primary.sock');
  const workers = new Set<Worker>();
  const send = (worker: Worker, message: ToWorker) => {
    if (worker.isConnected()) worker.send(message, () => {}); // a worker that just died misses it
  };
  const broadcast = (message: ToWorker, except?: Worker) => {
    for (const worker of workers) if (worker !== except) send(worker, message);
  };
  const requests: RequestCounter = { startedAt: Date.now(), requests: 0, sessions: 0 };
  const metrics = new PrometheusMetrics({ logger });
  const scrapes = new Map<number, (snapshot: MetricsSnapshot) => void>();
  let nextScrape = 1;
  const workersMetrics = () =>
    Promise.all(
      [...workers].map(
        (worker) =>
          new Promise<MetricsSnapshot | undefined>((resolve) => {
            const id = nextScrape++;
            const timer = setTimeout(() => {
              scrapes.delete(id);
              resolve(undefined);
            }, METRICS_WAIT_MS);
            scrapes.set(id, (snapshot) => {
              clearTimeout(timer);
              scrapes.delete(id);
              resolve(snapshot);
            });
            send(worker, { type: 'metrics', id });
          }),
      ),
    ).then((snapshots) => snapshots.filter((snapshot) => snapshot !== undefined));
  let grid: RunningGrid | undefined;
  try {
    grid = await startGrid(config, secret, logger, {
      ...options,
      socketPath,
      requests,
      metrics,
      metricsPage: new ClusterMetricsPage(metrics, workersMetrics),
      ended: new EndedSessions(undefined, (key, session) => broadcast({ type: 'ended', key, session })),
      onReloaded: () => grid && broadcast({ type: 'config', state: configState(grid.deps) }),
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const running = grid;
  const { deps } = running;
  // The workers' password checks are made here, on this process's threads, bounded per client once.
  const passwords = deps.users instanceof HtpasswdUserDirectory ? deps.users.checks : undefined;

  const onMessage = (worker: Worker, message: ToPrimary) => {
    switch (message.type) {
      case 'ready':
        return send(worker, {
          type: 'setup',
          secret: secret.toString('base64'),
          state: configState(deps),
          socketPath,
          sessionOwner: process.pid,
          launcherKinds: Object.keys(deps.runtimes) as PoolConfig['kind'][],
          hostPathKinds: kindsWith(deps, 'hostPaths'),
          networkKinds: kindsWith(deps, 'network'),
          // Taken as it is sent: what ends later is broadcast after it, and arrives after it.
          ended: deps.ended.entries(),
        });
      case 'call':
        return void answerPortCall(deps, message, passwords).then(
          (value) => send(worker, { type: 'reply', id: message.id, value: value ?? null }),
          (error: unknown) => send(worker, { type: 'reply', id: message.id, error: toWire(error) }),
        );
      case 'activity':
        applyActivity(deps.sessions, message.touches);
        requests.requests += message.requests;
        return;
      case 'ended':
        deps.ended.heard(message.key, message.session);
        return broadcast(message, worker);
      case 'metrics':
        return scrapes.get(message.id)?.(message.snapshot as MetricsSnapshot);
    }
  };

  let closing: Promise<void> | undefined;
  let started = false;
  const fork = (): Worker => {
    const worker = cluster.fork();
    workers.add(worker);
    worker.on('message', (message: ToPrimary) => onMessage(worker, message));
    worker.on('listening', (address) =>
      logger.log('WORKER_STARTED', { pid: worker.process.pid, port: address.port }),
    );
    worker.on('error', () => {}); // a send to a worker that is gone; its exit is handled below
    return worker;
  };
  const listening = new Promise<number>((resolve, reject) => {
    let ready = 0;
    cluster.on('listening', (_worker, address) => {
      if (++ready === workerCount) resolve(address.port);
    });
    cluster.on('exit', (worker, code, signal) => {
      workers.delete(worker);
      const replaced = started && !closing;
      logger.log('WORKER_EXITED', { pid: worker.process.pid, code, signal, replaced });
      // Before the start, a worker that exits would exit again (its port taken, say): the start fails.
      if (!started)
        reject(new Error(`a worker process exited before it listened (code ${code}, signal ${signal})`));
      else if (replaced) fork();
    });
  });
  for (let i = 0; i < workerCount; i++) fork();

  const close = () => {
    closing ??= (async () => {
      const exited = Promise.all(
        [...workers].map((worker) => new Promise((resolve) => worker.once('exit', resolve))),
      );
      broadcast({ type: 'stop' });
      await running.close();
      const late = setTimeout(() => {
        for (const worker of workers) worker.process.kill('SIGKILL');
      }, WORKER_EXIT_WAIT_MS);
      await exited;
      clearTimeout(late);
      rmSync(dir, { recursive: true, force: true });
    })();
    return closing;
  };
  let port: number;
  try {
    port = await listening;
  } catch (error) {
    await close();
    throw error;
  }
  started = true;
  const url = `http://${localUrlHost(config.host)}:${port}`;
  logger.log('SERVER_STARTED', {
    url,
    version: deps.version,
    reach: reachNotice(config),
    workers: workerCount,
  });
  return {
    url,
    grid: running,
    workerPids: () => [...workers].flatMap((worker) => (worker.process.pid ? [worker.process.pid] : [])),
    reload: (trigger) => running.reload(trigger),
    close,
  };
}

/**
 * The kinds whose runtimes here have the part: bounds on what a session's commands may name of this
 * machine's files, or a way into their browsers' networks.
 */
function kindsWith(deps: RunningGrid['deps'], part: 'hostPaths' | 'network'): PoolConfig['kind'][] {
  return (Object.keys(deps.runtimes) as PoolConfig['kind'][]).filter((kind) => deps.runtimes[kind]?.[part]);
}
