/**
 * End to end on a local pool: a Playwright connection that asks `?enableVideo=true` (Moon's option) is
 * recorded as a WebDriver session that asks for its video: once the socket closes, the status page lists it
 * under its test name and serves an H.264 video of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { recordedPlaywrightVisit } from '../support/socket-session-clients';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';

let grid: TestGrid;
let site: TestPageServer;
const scratch = mkdtempSync(join(tmpdir(), 'gg-socket-video-'));

beforeAll(async () => {
  [grid, site] = await Promise.all([
    startTestGrid({ recording: { directory: join(scratch, 'kept') } }),
    startTestPageServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

describe('recording a session that is a WebSocket', { timeout: 180_000 }, () => {
  it('records a Playwright connection that asks enableVideo=true, listed by its name', async () => {
    const video = await recordedPlaywrightVisit(grid.url, site.url, 'recorded-pw');
    expect(video.codec).toBe('h264');
    expect(video.frames).toBeGreaterThan(0);
  });
});
