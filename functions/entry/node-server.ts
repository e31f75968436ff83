/** `npm start`: the grid on this machine. Flags: --config FILE (or GRIDGATE_CONFIG). SIGHUP reloads FILE. */
import { JsonLogger } from '../adapters/node/json-logger';
import { awsAdapters } from './aws-adapters';
import { loadConfig } from './load-config';
import { reachNotice } from './reach-notice';
import { type RunningGrid, startGrid } from './start-grid';

const logger = new JsonLogger();
// SIGHUP reloads the config file (its outcome is logged). The handler goes in first: without one, a
// SIGHUP during start-up would end the process; one that arrives then is carried out once started.
let grid: RunningGrid | undefined;
let reloadWhenStarted = false;
// reload() logs its outcome (CONFIG_RELOADED or CONFIG_RELOAD_FAILED) and is not meant to reject.
const reload = (running: RunningGrid): void => {
  running
    .reload('SIGHUP')
    .catch((error: unknown) => console.error(`gridgate: reload failed: ${String(error)}`));
};
process.on('SIGHUP', () => {
  if (grid) reload(grid);
  else reloadWhenStarted = true;
});
try {
  const loaded = await loadConfig(process.argv.slice(2), process.env, logger);
  const started = await startGrid(loaded.config, loaded.secret, logger, {
    configPath: loaded.path,
    configFingerprint: loaded.fingerprint,
    deployment: loaded.deployment,
    webSockets: !loaded.webFunction,
    ...(loaded.webFunction ? { loopbackOnly: false } : {}),
    metrics: loaded.webFunction ? await awsAdapters.metrics() : undefined,
    // A Web Function is reached through its function URL (no per-request fee) and one invocation a request.
    requestPricing: loaded.webFunction ? { frontDoor: 'function url', lambda: true } : undefined,
  });
  grid = started;
  console.error(`gridgate: WebDriver grid ready at ${started.url} (also ${started.url}/wd/hub)`);
  // Who can reach it and as whom, said where the person who started it looks (docs/security.md).
  console.error(`gridgate: ${reachNotice(started.deps.config)}`);
  if (reloadWhenStarted) reload(started);
  // `on`, not `once`: a second signal (a process group kill plus a relay) must not end Node mid-shutdown.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      started.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
} catch (error) {
  console.error(`gridgate: ${(error as Error).message}`);
  process.exit(1);
}
