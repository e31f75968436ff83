/** The local pool kind: Chromium started through chromedriver on this machine, one per session. */
import { localPool } from '../../core/config-pools';
import type { PoolKind } from '../pool-kind';
import { ensureChromium } from './ensure-chromium';

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
