/**
 * A local or container session whose recorder never saw its screen (the first attachment to its page had not
 * come when the session ended, so ffmpeg got no frame and wrote no file) says so where its video would be: in
 * the recordings list and on its own page of the status page, with the reason, instead of a video that is
 * silently missing. The browser is a DevTools stand-in that never answers the attachment; ffmpeg is real.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LaunchRequest } from '../../../functions/core/ports';
import type { RecordingView, SessionDetail } from '../../../functions/http/ui/ui-views';
import { LocalRecordings } from '../../../functions/pools/local/local-recordings';
import { NOTHING_RECORDED, SessionRecordings } from '../../../functions/pools/local/session-recordings';
import { type FakeDevtools, startFakeDevtools } from '../../support/fake-devtools';
import { CollectingLogger } from '../../support/fakes';
import { ALICE } from '../../support/page-users';
import { newSessionAs, sessionApi, statusPageGrids } from '../../support/status-page-grid';

const startGrid = statusPageGrids();
const opened: { devtools: FakeDevtools; root: string }[] = [];
afterEach(async () => {
  for (const { devtools, root } of opened.splice(0)) {
    await devtools.close();
    rmSync(root, { recursive: true, force: true });
  }
});

/**
 * alice's session on the local pool, recorded with video from a browser whose DevTools attach as `attach`
 * says, ended by its DELETE right after it opened; what the status page then shows of it.
 */
async function recordedThenEnded(attach: 'at once' | 'never') {
  const grid = startGrid();
  const devtools = await startFakeDevtools({ attach });
  const root = mkdtempSync(join(tmpdir(), 'gridgate-unseen-screen-'));
  opened.push({ devtools, root });
  const settings = () => ({ ...grid.deps.config.recording, directory: root });
  const store = new LocalRecordings(settings);
  grid.deps.artifacts = { local: store };
  const recordings = new SessionRecordings({
    store,
    settings,
    ffmpeg: async () => '/usr/bin/ffmpeg',
    logger: new CollectingLogger(),
  });
  const key = await newSessionAs(grid, ALICE, 'alice');
  const pool = grid.deps.config.pools.local;
  if (!pool) throw new Error('the grid has no local pool');
  const request: LaunchRequest = {
    key,
    user: 'alice',
    pool,
    idleTimeoutMs: 60_000,
    inUseMs: 60_000,
    capabilities: { browserName: 'chrome' },
    browserVersion: '156.0.7000.1',
    signal: new AbortController().signal,
    recording: { video: true, log: false },
  };
  const pending = await recordings.begin(request);
  recordings.track('handle-1', pending);
  await recordings.opened('handle-1', { 'goog:chromeOptions': { debuggerAddress: devtools.address } });
  await grid.deps.sessions.end(key, 'deleted', grid.clock.now());
  await recordings.stopRecording('handle-1');
  await recordings.keep('handle-1', 'deleted');

  const list = await grid.app.request('/ui/api/recordings', { headers: ALICE });
  const { recordings: listed } = (await list.json()) as { recordings: RecordingView[] };
  const page = await grid.app.request(sessionApi(key), { headers: ALICE });
  const { session } = (await page.json()) as { session: SessionDetail };
  return { devtools, listed: listed.find((recording) => recording.key === key), session };
}

describe('a video whose screen the recorder never saw', { timeout: 30_000 }, () => {
  it('is listed as not recorded, with why, in the recordings list and on the session’s page', async () => {
    const { devtools, listed, session } = await recordedThenEnded('never');
    // The recorder did ask to attach: the browser never answered.
    expect(devtools.asked).toContain('Target.attachToTarget');
    expect(devtools.asked).not.toContain('Page.startScreencast');
    expect(listed?.videoUrl).toBeUndefined();
    expect(listed?.videoNotKept).toBe(NOTHING_RECORDED);
    expect(session.recordings?.videoNotKept).toBe(NOTHING_RECORDED);
  });

  it('is kept as a video when the recorder saw the screen once, however short the session', async () => {
    const { listed, session } = await recordedThenEnded('at once');
    expect(listed?.videoUrl).toBe(`ui/api/recordings/${listed?.key}/video`);
    expect(listed?.videoNotKept).toBeUndefined();
    expect(session.recordings?.videoUrl).toBeDefined();
    expect(session.recordings?.videoNotKept).toBeUndefined();
  });
});
