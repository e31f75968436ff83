/** The local pool kind: Chromium started through chromedriver on this machine, one per session. */
import type { PoolKind } from '../pool-kind';
import { chromiumVersion, ensureChromium } from './ensure-chromium';
import { localWorkerParts } from './local-worker-parts';

// The built-in catalog's pool: Debian's Chromium and chromedriver, where its packages put them.
const DEBIAN_CHROMIUM = { chromium: '/usr/bin/chromium', chromedriver: '/usr/bin/chromedriver' };

export const localPoolKind: PoolKind<'local'> = {
  name: 'local',
  traits: {
    remoteEnd: 'browser',
    // A chromedriver and its Chromium are child processes of the head that started them.
    boundToItsHead: true,
    recordsVideo: () => true,
  },
  prepare: (pools, logger) => ensureChromium(pools, logger),
  builtInCatalog: {
    prepare: (logger) => ensureChromium([DEBIAN_CHROMIUM], logger),
    version: () => chromiumVersion(DEBIAN_CHROMIUM.chromium),
  },
  servedByWorkers: localWorkerParts,
  // Made at the Node server's start: what a killed gridgate left is swept before any browser starts.
  load: async () => (await import('./local-pool-runtime')).makeLocalRuntime,
};
