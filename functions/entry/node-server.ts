/** `npm start`: the grid on this machine. Flags: --config FILE (or GRIDGATE_CONFIG). SIGHUP reloads FILE. */
import { JsonLogger } from '../adapters/node/json-logger';
import { loadConfig } from './load-config';
import { startGrid } from './start-grid';

const logger = new JsonLogger();
try {
  const { config, path, fingerprint, secret } = await loadConfig(process.argv.slice(2), process.env, logger);
  const grid = await startGrid(config, secret, logger, { configPath: path, configFingerprint: fingerprint });
  console.error(`gridgate: WebDriver grid ready at ${grid.url} (also ${grid.url}/wd/hub)`);
  // SIGHUP reloads the config file (its outcome is logged); without a handler it would end the process.
  process.on('SIGHUP', () => void grid.reload('SIGHUP'));
  // `on`, not `once`: a second signal (a process group kill plus a relay) must not end Node mid-shutdown.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      grid.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
} catch (error) {
  console.error(`gridgate: ${(error as Error).message}`);
  process.exit(1);
}
