/**
 * docs/container-pools.md, done as it says with real podman: the page's first config is one gridgate takes; its
 * Selenoid `browsers.json` and the gridgate config it becomes say the same (each version's image and port);
 * that config, its image swapped for the test image (no registry here) and its pages let reach this machine's
 * test site, serves the page's Python example unmodified but for the grid's and the site's addresses, and the
 * page's curl commands fetch that session's video and log; ffprobe reads the video.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../functions/core/config';
import type { TestImages } from '../../../../scripts/test-images';
import {
  containerImages,
  containersOfPool,
  HOST_LOOPBACK_FROM_PAGES,
  removeContainersOfPool,
} from '../../../support/container-grid';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { runPython } from '../../../support/python-selenium';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { probeVideo } from '../../../support/video-probe';

const page = readFileSync(new URL('../../../../docs/container-pools.md', import.meta.url), 'utf8');
const blocks = (language: string) =>
  [...page.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] as string);
const [firstConfig, selenoidBlock, gridgateBlock] = blocks('json') as [string, string, string];

interface SelenoidBrowsers {
  [browser: string]: { default: string; versions: Record<string, { image: string; port: string }> };
}
interface GridgateConfig {
  browsers: Record<string, { defaultVersion: string; versions: Record<string, { pools: string[] }> }>;
  pools: Record<string, { kind: string; image: string; port: number }>;
}

const scratch = mkdtempSync(join(tmpdir(), 'gridgate-container-docs-'));
const gridgate = JSON.parse(gridgateBlock) as GridgateConfig;
const poolNames = Object.keys(gridgate.pools);
let images: TestImages;
let grid: TestGrid;
let site: TestPageServer;

beforeAll(async () => {
  [images, site] = await Promise.all([containerImages(), startTestPageServer()]);
  const pools = Object.fromEntries(
    Object.entries(gridgate.pools).map(([name, pool]) => [
      name,
      { ...pool, image: images.chromedriver, hostLoopback: true },
    ]),
  );
  grid = await startTestGrid({ ...gridgate, pools, recording: { directory: join(scratch, 'kept') } });
}, 900_000);

afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  for (const pool of poolNames) removeContainersOfPool(pool);
  rmSync(scratch, { recursive: true, force: true });
});

const local = (text: string) =>
  text
    .replaceAll('http://localhost:4444', grid.url)
    .replaceAll('https://example.com/', `${site.url.replace('127.0.0.1', HOST_LOOPBACK_FROM_PAGES)}/`);

describe('docs/container-pools.md', { timeout: 150_000 }, () => {
  it('shows a config gridgate takes', () => {
    const config = parseConfig(JSON.parse(firstConfig), { builtInBrowserVersion: '156' });
    expect(Object.values(config.pools).map((pool) => pool.kind)).toEqual(['container', 'container']);
  });

  it('translates the Selenoid browsers.json version for version, image for image', () => {
    const selenoid = JSON.parse(selenoidBlock) as SelenoidBrowsers;
    for (const [browser, { default: defaultVersion, versions }] of Object.entries(selenoid)) {
      const ours = gridgate.browsers[browser];
      expect(ours?.defaultVersion).toBe(String(Number.parseInt(defaultVersion, 10)));
      for (const [version, { image, port }] of Object.entries(versions)) {
        const [poolName] = ours?.versions[String(Number.parseInt(version, 10))]?.pools ?? [];
        const pool = gridgate.pools[poolName as string];
        expect(pool).toMatchObject({ kind: 'container', port: Number(port) });
        // The same browser build, from docker-selenium instead of Selenoid's images.
        expect(pool?.image.split(':')[1]).toBe(image.split(':')[1]);
      }
    }
  });

  it('serves the Selenoid Python example, and the curl commands fetch its video and log', async () => {
    const [python] = blocks('python');
    const script = join(scratch, 'example.py');
    writeFileSync(script, local(python as string));
    const run = await runPython(script, []);
    expect(run.code, run.stderr).toBe(0);
    const sessionId = run.stdout.trim().split('\n')[0] as string;
    for (const pool of poolNames) expect(containersOfPool(pool)).toEqual([]);
    const [curl] = blocks('sh');
    await promisify(execFile)('sh', ['-e', '-c', local(curl as string)], {
      cwd: scratch,
      env: { ...process.env, SESSION_ID: sessionId, NO_PROXY: '*' },
    });
    const video = await probeVideo(join(scratch, 'checkout.mp4'));
    expect(video.codec).toBe('h264');
    expect(video.frames).toBeGreaterThan(0);
    expect(readFileSync(join(scratch, 'checkout.log'), 'utf8')).toContain(
      'ChromeDriver was started successfully',
    );
  });
});
