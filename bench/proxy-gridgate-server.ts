/**
 * gridgate as users run it, for the proxy benchmark: `npm start`'s command (scripts/start-server.mjs, the
 * production build, plain node) with a config file naming one hub pool in front of the fake upstream and
 * no `workers` key, so the server runs the workers it runs by default on this machine. Its own process
 * group (the primary and its workers), stopped with SIGTERM as an operator would stop it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from '../scripts/server-build.mjs';
import { freePort, readyOrStopped, type ServerProcess, startServerProcess } from './proxy-processes';
import { track } from './teardown';

const REPOSITORY = fileURLToPath(new URL('..', import.meta.url));
// The first start may build dist/server/ first.
const READY_MS = 90_000;

export interface GridgateServer {
  origin: string;
  /** Worker processes it runs (its SERVER_STARTED line says; 1: one process, no workers). */
  workers: number;
  process: ServerProcess;
}

/** `workers`: the config's key; none: the default, as users get it. */
export async function startGridgateServer(upstream: string, workers?: number): Promise<GridgateServer> {
  const dir = await mkdtemp(join(tmpdir(), 'gridgate-bench-server-'));
  const untrack = track({ stop: () => rm(dir, { recursive: true, force: true }), kill: () => {} });
  const port = await freePort();
  const file = join(dir, 'gridgate.json');
  await writeFile(
    file,
    JSON.stringify({
      port,
      host: '127.0.0.1',
      ...(workers === undefined ? {} : { workers }),
      browsers: { chrome: { defaultVersion: '1.0', versions: { '1.0': { pools: ['fake'] } } } },
      pools: { fake: { kind: 'hub', url: upstream, maxSessions: 4 } },
    }),
  );
  const server = startServerProcess(
    process.execPath,
    [...SERVER_NODE_FLAGS, 'scripts/start-server.mjs', '--config', file],
    'SIGTERM',
    REPOSITORY,
  );
  const started = () => /"event":"SERVER_STARTED".*$/m.exec(server.output())?.[0];
  await readyOrStopped(
    'gridgate (npm start)',
    READY_MS,
    server,
    async () => started() !== undefined,
    async () => {
      await rm(dir, { recursive: true, force: true });
      untrack();
    },
  );
  const running = Number(/"workers":(\d+)/.exec(started() ?? '')?.[1] ?? 1);
  return { origin: `http://127.0.0.1:${port}`, workers: running, process: server };
}
