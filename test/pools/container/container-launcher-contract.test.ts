/**
 * The Launcher contract against the container launcher, with real podman and the chromedriver test image:
 * what runs is what podman lists under the pool's label.
 */
import { beforeAll } from 'vitest';
import { containerEngines } from '../../../functions/pools/container/container-engines';
import { ContainerLauncher } from '../../../functions/pools/container/container-launcher';
import type { TestImages } from '../../../scripts/test-images';
import { launcherContract } from '../../contract/launcher.contract';
import {
  containerImages,
  containersOfPool,
  removeContainersOfPool,
  uniquePoolName,
} from '../../support/container-grid';
import { CollectingLogger } from '../../support/fakes';
import { configWithOnePool } from '../../support/one-pool-config';

let images: TestImages;

beforeAll(async () => {
  images = await containerImages();
}, 900_000);

launcherContract('ContainerLauncher', () => {
  const name = uniquePoolName('contract');
  const pool = configWithOnePool(name, { kind: 'container', image: images.chromedriver }).pools[name];
  if (pool?.kind !== 'container') throw new Error('expected a container pool');
  const logger = new CollectingLogger();
  const launcher = new ContainerLauncher({
    engineFor: containerEngines(),
    logger,
    onUnexpectedExit: () => undefined,
    timeouts: () => ({ newSession: 60_000, maxAge: 3_600_000 }),
  });
  return {
    launcher,
    logger,
    pool,
    running: () => containersOfPool(name).length,
    // A container ID of podman's form that no run gave.
    unknownHandle: '0'.repeat(64),
    dispose: async () => {
      await launcher.stopAll();
      removeContainersOfPool(name);
    },
  };
});
