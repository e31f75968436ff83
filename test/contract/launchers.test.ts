/** The Launcher contract against the adapters that run on this machine: local chromedriver, hub. */
import { HubLauncher } from '../../functions/adapters/hub/hub-launcher';
import { ChromedriverLauncher } from '../../functions/adapters/local/chromedriver-launcher';
import { parseConfig } from '../../functions/core/config';
import { launcherContract } from './launcher.contract';

const config = parseConfig(
  {
    browsers: { chrome: { versions: { '1': { pools: ['local', 'hub'] } } } },
    pools: { local: { kind: 'local' }, hub: { kind: 'hub', url: 'http://127.0.0.1:4444/wd/hub' } },
  },
  { localBrowserVersion: '1' },
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

// A hub starts its browsers itself: nothing runs here, and a stop without the hub's session ID sends nothing.
launcherContract('HubLauncher', () => ({
  launcher: new HubLauncher(),
  pool: config.pools.hub as NonNullable<(typeof config.pools)['hub']>,
  running: () => 0,
}));
