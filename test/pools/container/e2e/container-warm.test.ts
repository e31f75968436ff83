/**
 * A container pool's warm containers (`warm: N`): started ahead of demand, handed to a new session (whose ID
 * then names that very container), replaced after the hand-over, and removed with the server.
 */
import { Builder } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestImages } from '../../../../scripts/test-images';
import {
  containerImages,
  containersOfPool,
  removeContainersOfPool,
  startContainerGrid,
  uniquePoolName,
} from '../../../support/container-grid';
import type { TestGrid } from '../../../support/grid-fixture';
import { eventually } from '../../../support/until';

const TEST_MS = 120_000;

let images: TestImages;
const pool = uniquePoolName('warm');
let grid: TestGrid;

beforeAll(async () => {
  images = await containerImages();
  grid = await startContainerGrid(pool, { image: images.chromedriver, warm: 1 });
}, 900_000);

afterAll(async () => {
  await grid?.close();
  removeContainersOfPool(pool);
});

const warmCount = () => grid.deps.runtimes.container?.warm?.warmCount(pool);

describe('a container pool with warm: 1', { timeout: TEST_MS }, () => {
  it('hands its warm container to a new session and starts another', async () => {
    await eventually(() => expect(warmCount()).toBe(1));
    const [warm] = containersOfPool(pool);
    const status = (await (await fetch(`${grid.url}/status`)).json()) as {
      value: { pools: { name: string; warm?: number }[] };
    };
    expect(status.value.pools.find((entry) => entry.name === pool)?.warm).toBe(1);

    const driver = await new Builder().usingServer(grid.url).forBrowser('chrome').build();
    try {
      const check = grid.deps.tokens.verify((await driver.getSession()).getId(), 'guest');
      if (!check.ok) throw new Error(check.reason);
      expect(check.claims.handle).toBe(warm);
      await driver.get('data:text/html,<title>warm</title>');
      expect(await driver.getTitle()).toBe('warm');
      // The replacement starts once the warm one was taken.
      await eventually(() => expect(warmCount()).toBe(1));
      expect(containersOfPool(pool)).toHaveLength(2);
    } finally {
      await driver.quit();
    }
    expect(containersOfPool(pool)).toHaveLength(1);
  });

  it('removes its warm containers when the server stops', async () => {
    await grid.close();
    expect(containersOfPool(pool)).toEqual([]);
  });
});
