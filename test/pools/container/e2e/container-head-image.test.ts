/**
 * The head image built from the repository's Dockerfile as it is (scripts/test-images.ts, on a registry-free
 * stand-in for its node:22 base), run by podman as users run it: its config mounted at GRIDGATE_CONFIG's path,
 * the signing key in its environment, host networking (no bridge) with the config's loopback address. It routes
 * a real selenium-webdriver session to a browser container of the chromedriver image, as a hub pool.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTAINERS_CONF, headImage, TEST_LABEL } from '../../../../scripts/test-images';
import { containerImages, removeContainersOfPool, uniquePoolName } from '../../../support/container-grid';
import { until } from '../../../support/until';

const TEST_MS = 120_000;
const label = uniquePoolName('head-image');
const scratch = mkdtempSync(join(tmpdir(), 'gridgate-head-image-'));
let headUrl: string;

function podman(args: string[]): string {
  return execFileSync('podman', args, { env: { ...process.env, CONTAINERS_CONF }, encoding: 'utf8' }).trim();
}

/** A port free on loopback now, for the head, which listens in this machine's network. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  const [images, head] = await Promise.all([containerImages(), headImage()]);
  const labels = [`--label=${TEST_LABEL}`, `--label=io.gridgate.pool=${label}`];
  const browser = podman([
    'run',
    '--detach',
    '--rm',
    '--init',
    ...labels,
    '--network=slirp4netns',
    '--publish=127.0.0.1::4444',
    '--shm-size=1g',
    images.chromedriver,
  ]);
  const browserAddress = podman(['port', browser, '4444/tcp']);
  const port = await freePort();
  const config = join(scratch, 'gridgate.json');
  writeFileSync(
    config,
    JSON.stringify({
      port,
      host: '127.0.0.1',
      workers: 1,
      browsers: { chrome: { defaultVersion: '156', versions: { '156': { pools: ['browser'] } } } },
      pools: { browser: { kind: 'hub', url: `http://${browserAddress}` } },
    }),
  );
  // The image runs as its user node (1000), which must read the mounted file.
  chmodSync(config, 0o644);
  podman([
    'run',
    '--detach',
    '--rm',
    '--init',
    ...labels,
    '--network=host',
    `--volume=${config}:/etc/gridgate/gridgate.json:ro`,
    `--env=GRIDGATE_SECRET=${randomBytes(32).toString('hex')}`,
    head,
  ]);
  headUrl = `http://127.0.0.1:${port}`;
  await until(
    async () =>
      ((await (await fetch(`${headUrl}/status`)).json()) as { value: { ready: boolean } }).value.ready,
    'the head answered ready',
  );
}, 900_000);

afterAll(() => {
  removeContainersOfPool(label);
  rmSync(scratch, { recursive: true, force: true });
});

describe('the head image built from Dockerfile', { timeout: TEST_MS }, () => {
  it('serves a WebDriver session routed to a browser container', async () => {
    const driver = await new Builder().usingServer(headUrl).forBrowser('chrome').build();
    try {
      await driver.get('data:text/html,<title>through the head image</title>');
      expect(await driver.getTitle()).toBe('through the head image');
    } finally {
      await driver.quit();
    }
  });
});
