/**
 * The status page's live view of a container session: the docker-selenium look-alike serves noVNC on its
 * vncPort, which gridgate publishes on loopback beside the WebDriver port and shows through its own routes,
 * as it shows an ecs task's.
 */
import { Builder } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestImages } from '../../../../scripts/test-images';
import {
  containerImages,
  removeContainersOfPool,
  startContainerGrid,
  uniquePoolName,
} from '../../../support/container-grid';
import type { TestGrid } from '../../../support/grid-fixture';
import { eventually } from '../../../support/until';

const TEST_MS = 120_000;

let images: TestImages;
let grid: TestGrid;
const pool = uniquePoolName('vnc');

beforeAll(async () => {
  images = await containerImages();
  grid = await startContainerGrid(pool, { image: images.standaloneChromium });
}, 900_000);

afterAll(async () => {
  await grid?.close();
  removeContainersOfPool(pool);
});

describe('a container session on the status page', { timeout: TEST_MS }, () => {
  it("serves the container's noVNC viewer through gridgate, with its password", async () => {
    const driver = await new Builder().usingServer(grid.url).forBrowser('chrome').build();
    try {
      const check = grid.deps.tokens.verify((await driver.getSession()).getId(), 'guest');
      if (!check.ok) throw new Error(check.reason);
      const api = `${grid.url}/ui/api/sessions/${check.claims.key}`;
      const detail = (await (await fetch(api)).json()) as { session: { vnc?: { password: string } } };
      expect(detail.session.vnc).toEqual({ password: 'secret' });
      // websockify starts a moment after Selenium may already take sessions.
      await eventually(async () => {
        const page = await fetch(`${api}/vnc/vnc.html`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('noVNC');
      });
    } finally {
      await driver.quit();
    }
  });
});
