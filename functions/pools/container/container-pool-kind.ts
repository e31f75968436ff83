/** The container pool kind: one browser container per session on this machine (podman or Docker). */
import type { PoolKind } from '../pool-kind';

export const containerPoolKind: PoolKind<'container'> = {
  name: 'container',
  // Its browser runs in a container of its own: its files and its DevTools are the container's, not this machine's
  // (gridgate reaches the DevTools through a door of the launcher's, not by the kind). The container is in the
  // engine of the head that started it, at an address on that machine's loopback: only that head can stop it.
  // Its video is the host-side screencast recorder's (session-recorder.ts).
  traits: { remoteEnd: 'browser', boundToItsHead: true, recordsVideo: () => true },
  // Made at the Node server's start: what a killed gridgate left in the engines is swept first.
  load: async () => (await import('./container-pool-runtime')).makeContainerRuntime,
};
