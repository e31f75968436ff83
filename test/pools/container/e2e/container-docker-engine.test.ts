/**
 * Opt-in, end to end: a container pool with `engine: "docker"`, run by a Docker daemon, serves a
 * selenium-webdriver session and removes its container at the session's end and at the server's shutdown.
 * Skipped unless `docker info` answers (a daemon runs) and the image is there: GitHub's runners have both
 * (`docker pull selenium/standalone-chromium`); GRIDGATE_DOCKER_TEST_IMAGE names another image. Docker puts
 * each container on its default bridge to publish its port, so a machine that must not make a bridge (one
 * whose dockerd runs with `--bridge=none`) cannot serve a container pool with Docker at all: use podman there.
 */
import { execFileSync } from 'node:child_process';
import { Builder } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { afterAll, describe, expect, it } from 'vitest';
import { startContainerGrid, uniquePoolName } from '../../../support/container-grid';
import type { TestGrid } from '../../../support/grid-fixture';

const IMAGE = process.env.GRIDGATE_DOCKER_TEST_IMAGE ?? 'selenium/standalone-chromium:latest';

function docker(args: string[]): string | undefined {
  try {
    return execFileSync('docker', args, {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return undefined;
  }
}

const ready =
  docker(['info', '--format', '{{.ServerVersion}}']) !== undefined &&
  docker(['image', 'inspect', IMAGE]) !== undefined;

function containersOf(pool: string): string[] {
  return (
    docker(['ps', '--all', '--quiet', '--no-trunc', '--filter', `label=io.gridgate.pool=${pool}`]) ?? ''
  )
    .split('\n')
    .filter(Boolean);
}

describe.skipIf(!ready)('a container pool run by Docker', { timeout: 180_000 }, () => {
  const pool = uniquePoolName('docker');
  let grid: TestGrid | undefined;

  afterAll(async () => {
    await grid?.close();
    const left = containersOf(pool);
    if (left.length) docker(['rm', '--force', ...left]);
  });

  it('serves a session and removes its container at its end and at shutdown', async () => {
    grid = await startContainerGrid(pool, { image: IMAGE, engine: 'docker', maxSessions: 2 });
    const options = new ChromeOptions();
    options.addArguments('--headless=new');
    const driver = await new Builder()
      .usingServer(grid.url)
      .forBrowser('chrome')
      .setChromeOptions(options)
      .build();
    try {
      await driver.get('data:text/html,<title>from a docker container</title>');
      expect(await driver.getTitle()).toBe('from a docker container');
      expect(containersOf(pool)).toHaveLength(1);
    } finally {
      await driver.quit();
    }
    expect(containersOf(pool)).toEqual([]);

    await new Builder().usingServer(grid.url).forBrowser('chrome').setChromeOptions(options).build();
    expect(containersOf(pool)).toHaveLength(1);
    await grid.close();
    grid = undefined;
    expect(containersOf(pool)).toEqual([]);
  });
});
