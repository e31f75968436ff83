/**
 * A real gridgate serving one container pool of a test image (scripts/test-images.ts), run by podman with the
 * tests' settings (test/images/containers.conf), and what the tests look at: the containers a pool has on this
 * machine, by the labels gridgate gives them. Each test file names its pool uniquely, so files running at once
 * never see each other's containers.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { CONTAINERS_CONF, type TestImages, testImages } from '../../scripts/test-images';
import { startTestGrid, type TestGrid } from './grid-fixture';

/** What a page in a container calls this machine's loopback, in a pool with `hostLoopback` (slirp4netns). */
export const HOST_LOOPBACK_FROM_PAGES = '10.0.2.2';

/** The test images, built where missing; podman then runs with the tests' settings, gridgate's podman too. */
export async function containerImages(): Promise<TestImages> {
  process.env.CONTAINERS_CONF = CONTAINERS_CONF;
  return testImages();
}

/** A pool name of its own for a test file. */
export function uniquePoolName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/** A grid whose one pool `name` (Chrome 156, the default) is this container pool. */
export async function startContainerGrid(
  name: string,
  pool: Record<string, unknown>,
  rest: Record<string, unknown> = {},
): Promise<TestGrid> {
  process.env.CONTAINERS_CONF = CONTAINERS_CONF;
  return startTestGrid({
    ...rest,
    browsers: { chrome: { defaultVersion: '156', versions: { '156': { pools: [name] } } } },
    pools: { [name]: { kind: 'container', ...pool } },
  });
}

/** IDs of the pool's containers on this machine, running or not. */
export function containersOfPool(pool: string): string[] {
  return execFileSync(
    'podman',
    ['ps', '--all', '--quiet', '--no-trunc', '--filter', `label=io.gridgate.pool=${pool}`],
    { env: { ...process.env, CONTAINERS_CONF }, encoding: 'utf8' },
  )
    .split('\n')
    .filter(Boolean);
}

/** Removes the pool's containers (a test's last word, whatever happened). */
export function removeContainersOfPool(pool: string): void {
  const ids = containersOfPool(pool);
  if (ids.length === 0) return;
  execFileSync('podman', ['rm', '--force', '--time=0', ...ids], {
    env: { ...process.env, CONTAINERS_CONF },
    stdio: 'ignore',
  });
}

/**
 * What is left of a container's DevTools door (pools/container/devtools-door.ts): its namespace's name under
 * /run/netns, and a pasta process serving it.
 */
export function doorOf(containerId: string): { named: boolean; pasta: boolean } {
  const short = containerId.slice(0, 12);
  const name = readdirSync('/run/netns').find(
    (entry) => entry.startsWith('gridgate-door-') && entry.endsWith(short),
  );
  let pasta = false;
  try {
    execFileSync('pgrep', ['--full', `^pasta .*--netns gridgate-door-[0-9-]+-${short}$`], {
      stdio: 'ignore',
    });
    pasta = true;
  } catch {
    // pgrep exits 1 when nothing matches.
  }
  return { named: name !== undefined, pasta };
}
