/** The container pool kind: one browser container per session on this machine (podman or Docker). */
import { containerPool } from '../../core/config-container-pool';
import type { PoolKind } from '../pool-kind';

export const containerPoolKind: PoolKind<'container'> = {
  name: 'container',
  schema: containerPool,
  // Its browser runs in a container of its own: its files and its DevTools are the container's, not this machine's.
  traits: { remoteEnd: 'browser', boundToItsHead: false, servesDevtools: false, sharesHostFiles: false },
};
