/** The local pool kind: Chromium started through chromedriver on this machine, one per session. */
import type { PoolKind } from '../pool-kind';
import { ensureChromium } from './ensure-chromium';
import { localPool } from './local-pool-config';

export const localPoolKind: PoolKind<'local'> = {
  name: 'local',
  schema: localPool,
  traits: {
    remoteEnd: 'browser',
    // A chromedriver and its Chromium are child processes of the head that started them.
    boundToItsHead: true,
    recordsVideo: () => true,
  },
  prepare: (pools, logger) => ensureChromium(pools, logger),
};
