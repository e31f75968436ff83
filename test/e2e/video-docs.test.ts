/**
 * docs/video-and-logs.md, done as it says on real Chromium: a grid with the page's recording config, the
 * page's Python selenium example run unmodified but for the grid's and the site's addresses, then the
 * page's curl commands fetching that session's video and log; ffprobe reads the video. /status's
 * recordings entry has the keys the page shows.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { runPython } from '../support/python-selenium';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { probeVideo } from '../support/video-probe';

const page = readFileSync(new URL('../../docs/video-and-logs.md', import.meta.url), 'utf8');
const blocks = (language: string) =>
  [...page.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] as string);
const [configBlock, statusBlock] = blocks('json') as [string, string];
const config = JSON.parse(configBlock) as { recording: Record<string, unknown> };

const scratch = mkdtempSync(join(tmpdir(), 'gridgate-video-docs-'));
let grid: TestGrid;
let site: TestPageServer;

beforeAll(async () => {
  [grid, site] = await Promise.all([
    startTestGrid({ recording: { ...config.recording, directory: join(scratch, 'kept') } }),
    startTestPageServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

const local = (text: string) =>
  text.replaceAll('http://localhost:4444', grid.url).replaceAll('https://example.com/', `${site.url}/`);

describe('docs/video-and-logs.md', { timeout: 150_000 }, () => {
  it('takes the page’s recording config', () => {
    expect(grid.deps.config.recording).toMatchObject({
      log: true,
      format: 'mp4',
      fps: 10,
      size: '1280x720',
      retention: 48 * 3600_000,
      maxDiskSize: 5 * 1024 ** 3,
      flushTimeout: 10_000,
    });
  });

  it('records the Python example’s session, and the curl commands fetch its video and log', async () => {
    const [python] = blocks('python');
    const script = join(scratch, 'example.py');
    writeFileSync(script, local(python as string));
    const run = await runPython(script, []);
    expect(run.code, run.stderr).toBe(0);
    const sessionId = run.stdout.trim().split('\n')[0] as string;
    const [curl] = blocks('sh');
    await promisify(execFile)('sh', ['-e', '-c', local(curl as string)], {
      cwd: scratch,
      env: { ...process.env, SESSION_ID: sessionId, NO_PROXY: '*' },
    });
    const video = await probeVideo(join(scratch, 'checkout.mp4'));
    expect(video.codec).toBe('h264');
    expect(video.frames).toBeGreaterThan(0);
    expect(readFileSync(join(scratch, 'checkout.log'), 'utf8')).toContain('COMMAND Navigate');
  });

  it('shows in /status what the page says it shows', async () => {
    const shown = JSON.parse(statusBlock) as { recordings: Record<string, unknown>[] };
    const status = (await (await fetch(`${grid.url}/status`)).json()) as {
      value: { recordings: Record<string, unknown>[] };
    };
    expect(Object.keys(status.value.recordings[0] ?? {})).toEqual(Object.keys(shown.recordings[0] ?? {}));
    expect(status.value.recordings[0]).toMatchObject({ maxBytes: 5 * 1024 ** 3, retentionMs: 48 * 3600_000 });
  });
});
