/**
 * `npm start`: the grid on this machine. Flags: --config FILE (or GRIDGATE_CONFIG). SIGHUP reloads FILE.
 * With `workers` > 1 (by default, one per core) this is the primary of that many worker processes
 * (grid-primary.ts); each worker runs this same file and serves from grid-worker.ts.
 */
import cluster from 'node:cluster';
import { JsonLogger } from '../adapters/stdout/json-logger';
import { awsAdapters } from './aws-adapters';
import { defaultWorkers, startGridWithWorkers } from './grid-primary';
import { runWorker } from './grid-worker';
import { loadConfig } from './load-config';
import { reachNotice } from './reach-notice';
import { startGrid } from './start-grid';

interface Server {
  url: string;
  reload(trigger: 'SIGHUP'): Promise<boolean>;
  close(): Promise<void>;
}

const logger = new JsonLogger();
if (cluster.isWorker) {
  try {
    await runWorker(logger);
  } catch (error) {
    console.error(`gridgate: worker ${process.pid}: ${(error as Error).message}`);
    process.exit(1);
  }
} else {
  await runServer();
}

async function runServer(): Promise<void> {
  // SIGHUP reloads the config file (its outcome is logged). The handler goes in first: without one, a
  // SIGHUP during start-up would end the process; one that arrives then is carried out once started.
  let server: Server | undefined;
  let reloadWhenStarted = false;
  // reload() logs its outcome (CONFIG_RELOADED or CONFIG_RELOAD_FAILED) and is not meant to reject.
  const reload = (running: Server): void => {
    running
      .reload('SIGHUP')
      .catch((error: unknown) => console.error(`gridgate: reload failed: ${String(error)}`));
  };
  process.on('SIGHUP', () => {
    if (server) reload(server);
    else reloadWhenStarted = true;
  });
  // SIGTERM and SIGINT stop the server, their handlers in first too: without them a signal during start-up
  // would end the process at once, none of the shutdown done (what the start launched, warm browsers and
  // workers, not stopped in order; a warm browser's profile left). One then stops the server once started.
  let stopWhenStarted = false;
  const stop = (running: Server): void => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // `on`, not `once`: a second signal (a process group kill plus a relay) must not end Node mid-shutdown.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (server) stop(server);
      else stopWhenStarted = true;
    });
  }
  try {
    const loaded = await loadConfig(process.argv.slice(2), process.env, logger);
    const options = {
      configPath: loaded.path,
      configFingerprint: loaded.fingerprint,
      deployment: loaded.deployment,
      webSockets: !loaded.webFunction,
      // Reached only through its function URL, over TLS: a name rebound to it fails the certificate.
      ...(loaded.webFunction ? { knownHostsOnly: false } : {}),
      metrics: loaded.webFunction ? await awsAdapters.metrics() : undefined,
      // A Web Function is reached through its function URL (no per-request fee) and one invocation a request.
      requestPricing: loaded.webFunction ? { frontDoor: 'function url' as const, lambda: true } : undefined,
    };
    // A Lambda Web Function gets one request at a time: one process serves it.
    const workers = loaded.webFunction ? 1 : (loaded.config.workers ?? defaultWorkers());
    const started: Server =
      workers > 1
        ? await startGridWithWorkers(loaded.config, loaded.secret, logger, workers, options)
        : await startGrid(loaded.config, loaded.secret, logger, options);
    server = started;
    if (stopWhenStarted) return stop(started);
    const also = workers > 1 ? `, ${workers} worker processes` : '';
    console.error(`gridgate: WebDriver grid ready at ${started.url} (also ${started.url}/wd/hub${also})`);
    // Who can reach it and as whom, said where the person who started it looks (docs/security.md).
    console.error(`gridgate: ${reachNotice(loaded.config)}`);
    if (reloadWhenStarted) reload(started);
  } catch (error) {
    console.error(`gridgate: ${(error as Error).message}`);
    process.exit(1);
  }
}
