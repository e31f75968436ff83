/**
 * End to end through what `cdk deploy` would register: the stack is synthesized from the chromium-only example
 * (infra/examples/fargate-chromium.json), and the fake ECS (test/support/fake-ecs-api.ts, still refusing what
 * ECS refuses, the task definition included) runs each task's browser container as that definition says, its
 * image, command (the hard lifetime's `timeout`) and environment, with real podman on the task's loopback IP
 * (test/support/podman-task-containers.ts). The image is the tests' build of the same folder the stack's asset
 * is built from. The npm selenium-webdriver client drives a session through gridgate's ecs launcher; a session's
 * time zone and screen reach its browser as ECS applies a container override's environment.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Builder } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EcsPoolConfig } from '../../../../functions/core/config';
import { readGridConfig } from '../../../../infra/grid-config';
import { PODMAN_ENV, type TestImages, testImages } from '../../../../scripts/test-images';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import { leftoverTaskContainers, PodmanTaskContainers } from '../../../support/podman-task-containers';
import { freePortBelowEphemeral } from '../../../support/processes';
import {
  type SynthesizedTaskDefinition,
  synthesizedTaskDefinition,
} from '../../../support/synthesized-task-definition';

const ROOT = join(import.meta.dirname, '../../../..');
const EXAMPLE = join(ROOT, 'infra/examples/fargate-chromium.json');
const POOL = 'chromium-spot';
const TEST_MS = 120_000;

let images: TestImages;
let registered: SynthesizedTaskDefinition;
let containers: PodmanTaskContainers;
let fargate: FakeFargateGrid | undefined;

beforeAll(async () => {
  images = await testImages();
  // The pool on a port of its own (the task definition maps it, SE_PORT moves chromedriver to it), so tasks of
  // tests running beside this one never meet on a loopback address.
  const port = await freePortBelowEphemeral();
  const config = readGridConfig(EXAMPLE);
  (config.pools[POOL] as EcsPoolConfig).port = port;
  registered = synthesizedTaskDefinition(config, POOL);
  containers = new PodmanTaskContainers(registered.input.containerDefinitions[0], images.chromedriver);
  fargate = await startFakeFargateGrid({
    containerPort: port,
    taskDefinition: registered.input,
    containers,
    pool: { vncPort: false },
  });
}, 900_000);

afterAll(async () => {
  await fargate?.close();
  if (containers) expect(await leftoverTaskContainers(containers)).toEqual([]);
});

describe('the task definition the stack registers for the chromium-only image', { timeout: TEST_MS }, () => {
  it('is built from images/chromium, the folder the tests’ image is built from', () => {
    const folder = join(ROOT, 'images/chromium');
    expect(
      new Map(readdirSync(folder).map((name) => [name, readFileSync(join(folder, name), 'utf8')])),
    ).toEqual(registered.imageFiles);
  });

  it('starts as registered, serves a session through gridgate, and is stopped at DELETE', async () => {
    const grid = (fargate as FakeFargateGrid).grid;
    const driver = await new Builder().usingServer(grid.url).forBrowser('chrome').build();
    try {
      const [running] = await leftoverTaskContainers(containers);
      // What podman runs is the definition's command: the entry point under the task's hard lifetime.
      const command = JSON.parse(
        execFileSync('podman', ['inspect', '--format', '{{json .Config.Cmd}}', running as string], {
          env: PODMAN_ENV,
          encoding: 'utf8',
        }),
      );
      expect(command).toEqual(registered.input.containerDefinitions[0].command);
      expect(command.slice(0, 1)).toEqual(['timeout']);
      await driver.get('data:text/html,<title>from a task</title>');
      expect(await driver.getTitle()).toBe('from a task');
    } finally {
      await driver.quit();
    }
    expect(await leftoverTaskContainers(containers)).toEqual([]);
    const [task] = [...(fargate as FakeFargateGrid).fake.tasks.values()];
    expect(task?.desiredStatus).toBe('STOPPED');
    expect(task?.stoppedReason).not.toMatch(/Essential container/);
  });

  it("gives a session's task its se:timeZone and se:screenResolution through RunTask's container override", async () => {
    const { grid, fake } = fargate as FakeFargateGrid;
    const options = new ChromeOptions();
    options.set('se:timeZone', 'Australia/Eucla');
    options.set('se:screenResolution', '1024x768');
    const driver = await new Builder()
      .usingServer(grid.url)
      .forBrowser('chrome')
      .setChromeOptions(options)
      .build();
    try {
      // Eucla is UTC+8:45: no default of the image or rounding could give it.
      expect(
        await driver.executeScript(
          `return [Intl.DateTimeFormat().resolvedOptions().timeZone, screen.width + 'x' + screen.height,
            outerWidth + 'x' + outerHeight].join(' ');`,
        ),
      ).toBe('Australia/Eucla 1024x768 1024x768');
    } finally {
      await driver.quit();
    }
    // What the fake ECS took (and would have refused past RunTask's limits) and podman applied.
    expect(fake.callsOf('RunTask').at(-1)?.overrides.containerOverrides).toEqual([
      {
        name: registered.input.containerDefinitions[0].name,
        environment: [
          { name: 'SE_NODE_SESSION_TIMEOUT', value: expect.any(String) },
          { name: 'TZ', value: 'Australia/Eucla' },
          { name: 'SE_SCREEN_WIDTH', value: '1024' },
          { name: 'SE_SCREEN_HEIGHT', value: '768' },
        ],
      },
    ]);
  });
});
