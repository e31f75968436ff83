/** The Launcher contract against the hub launcher: a hub starts its browsers itself, so nothing runs here. */
import { parseConfig } from '../../../functions/core/config';
import { HubLauncher } from '../../../functions/pools/hub/hub-launcher';
import { launcherContract } from '../../contract/launcher.contract';

const config = parseConfig(
  {
    browsers: { chrome: { versions: { '1': { pools: ['hub'] } } } },
    pools: { hub: { kind: 'hub', url: 'http://127.0.0.1:4444/wd/hub' } },
  },
  { builtInBrowserVersion: '1' },
);

// A stop without the hub's session ID sends nothing.
launcherContract('HubLauncher', () => ({
  launcher: new HubLauncher(),
  pool: config.pools.hub as NonNullable<(typeof config.pools)['hub']>,
  running: () => 0,
}));
