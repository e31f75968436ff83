/** The Launcher contract against the local launcher: real chromedriver and Chromium on this machine. */
import { parseConfig } from '../../../functions/core/config';
import { ChromedriverLauncher } from '../../../functions/pools/local/chromedriver-launcher';
import { launcherContract } from '../../contract/launcher.contract';

const config = parseConfig(
  { browsers: { chrome: { versions: { '1': { pools: ['local'] } } } }, pools: { local: { kind: 'local' } } },
  { builtInBrowserVersion: '1' },
);

launcherContract('ChromedriverLauncher', () => {
  const launcher = new ChromedriverLauncher();
  return {
    launcher,
    pool: config.pools.local as NonNullable<(typeof config.pools)['local']>,
    running: () => launcher.running().length,
    dispose: () => launcher.stopAll(),
  };
});
