/**
 * The status page's ended sessions with recordings, through the whole app: each viewer sees their own (an
 * admin everyone's), searches by test name, and gets each video, log and last frame by the session's key;
 * a failed session's last frame only; the page may play media of its own origin.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionEndReason, UserDirectory } from '../../functions/core/ports';
import type { RecordingView } from '../../functions/http/ui/ui-views';
import { LocalRecordings } from '../../functions/pools/local/local-recordings';
import { type FakeGrid, startFakeGrid } from '../support/fake-grid';

const users: UserDirectory = { verify: async (user, password) => password === `${user}-pw` };
const as = (user: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${user}-pw`).toString('base64')}`,
  accept: 'application/json',
});

let root: string;
let grid: FakeGrid;
let recordings: LocalRecordings;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'gridgate-ui-recordings-'));
  grid = startFakeGrid({ config: { usersFile: 'users.htpasswd', admins: ['root'], guest: null }, users });
  recordings = new LocalRecordings(() => ({ ...grid.deps.config.recording, directory: join(root, 'kept') }));
  grid.deps.artifacts = { local: recordings };
  await keep('00000000000000a1', 'alice', 'checkout works', 'deleted', 1);
  await keep('00000000000000a2', 'alice', 'login fails', 'idle timeout', 2);
  await keep('00000000000000b1', 'bob', 'bob checkout', 'browser exited', 3);
});
afterEach(async () => {
  await grid.close();
  rmSync(root, { recursive: true, force: true });
});

async function keep(key: string, user: string, name: string, endReason: SessionEndReason, at: number) {
  const video = join(root, `${key}.mp4`);
  const log = join(root, `${key}.log`);
  writeFileSync(video, `video of ${key}`);
  writeFileSync(log, `log of ${key}`);
  await recordings.keep({
    session: {
      key,
      user,
      pool: 'local',
      browserName: 'chrome',
      browserVersion: '156',
      name,
      createdAt: at,
      endedAt: at * 1000,
      endReason,
    },
    video: { path: video, format: 'mp4', fileName: `${key}.mp4` },
    log: { path: log, fileName: `${key}.log` },
    screenshot: Buffer.from(`frame of ${key}`),
  });
}

async function listed(user: string, search = ''): Promise<RecordingView[]> {
  const answer = await grid.app.request(`/ui/api/recordings?q=${encodeURIComponent(search)}`, {
    headers: as(user),
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { recordings: RecordingView[] }).recordings;
}

describe('ended sessions on the status page', () => {
  it('lists the viewer’s own, newest first, and everyone’s to an admin', async () => {
    expect((await listed('alice')).map((r) => r.name)).toEqual(['login fails', 'checkout works']);
    expect((await listed('root')).map((r) => r.user)).toEqual(['bob', 'alice', 'alice']);
    expect(await listed('carol')).toEqual([]);
  });

  it('finds sessions by their test name', async () => {
    expect((await listed('root', 'CHECKOUT')).map((r) => r.key)).toEqual([
      '00000000000000b1',
      '00000000000000a1',
    ]);
    expect((await listed('alice', 'checkout')).map((r) => r.key)).toEqual(['00000000000000a1']);
  });

  it('serves each file by key to whoever may see the session, and the last frame of failed sessions only', async () => {
    const [failed, deleted] = await listed('alice');
    expect(deleted?.screenshotUrl).toBeUndefined();
    expect(failed?.screenshotUrl).toBe('ui/api/recordings/00000000000000a2/screenshot');
    const get = (path: string, user: string) => grid.app.request(`/${path}`, { headers: as(user) });
    expect(await (await get(failed?.videoUrl as string, 'alice')).text()).toBe('video of 00000000000000a2');
    expect(await (await get(failed?.logUrl as string, 'root')).text()).toBe('log of 00000000000000a2');
    const frame = await get(failed?.screenshotUrl as string, 'alice');
    expect(frame.headers.get('content-type')).toBe('image/jpeg');
    expect((await get(failed?.videoUrl as string, 'bob')).status).toBe(404);
    expect((await get('ui/api/recordings/00000000000000ff/video', 'root')).status).toBe(404);
  });

  it('lets the page play media of its own origin', async () => {
    const page = await grid.app.request('/ui', { headers: { ...as('alice'), accept: 'text/html' } });
    expect(page.headers.get('content-security-policy')).toContain("media-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script src="ui/recordings.js" defer></script>');
    expect(html).toContain('id="recordings-search"');
    const script = await grid.app.request('/ui/recordings.js', { headers: as('alice') });
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });
});

describe('what the tests said of themselves', () => {
  async function markEnded(key: string, user: string, marks: Parameters<FakeGrid['sessions']['mark']>[1]) {
    const at = Number.parseInt(key.slice(-1), 10);
    await grid.sessions.add({
      key,
      user,
      pool: 'local',
      browserName: 'chrome',
      browserVersion: '156',
      address: '127.0.0.1:1',
      handle: 'h',
      upstreamId: 'u',
      createdAt: at,
      lastActivityAt: at,
      idleTimeoutMs: 60_000,
      maxAgeMs: 600_000,
      recording: { video: true, log: true, retentionMs: 86_400_000 },
    });
    await grid.sessions.end(key, 'deleted', grid.clock.now());
    await grid.sessions.mark(key, marks);
  }

  beforeEach(async () => {
    await markEnded('00000000000000a1', 'alice', { result: { status: 'passed' }, build: 'b1' });
    await markEnded('00000000000000a2', 'alice', {
      result: { status: 'failed', reason: 'timed out' },
      build: 'b2',
      labels: { team: 'cart' },
    });
  });

  it('lists each session’s result, build and labels as the store keeps them', async () => {
    const [unknown, failed, passed] = await listed('root');
    expect(failed).toMatchObject({
      key: '00000000000000a2',
      result: { status: 'failed', reason: 'timed out' },
    });
    expect(failed?.labels).toEqual({ team: 'cart' });
    expect(passed).toMatchObject({ key: '00000000000000a1', result: { status: 'passed' }, build: 'b1' });
    expect(unknown?.result).toBeUndefined();
  });

  it.each([
    ['result=failed', ['00000000000000a2']],
    ['result=unknown', ['00000000000000b1']],
    ['build=b1', ['00000000000000a1']],
    // A build's failures, as docs/test-results.md asks for them.
    ['build=b2&result=failed', ['00000000000000a2']],
    ['build=b1&result=failed', []],
    ['label=team', ['00000000000000a2']],
    ['label=team%3Dother', []],
    ['q=cart', ['00000000000000a2']],
  ])('filters by %s', async (query, keys) => {
    const response = await grid.app.request(`/ui/api/recordings?${query}`, { headers: as('root') });
    const list = (await response.json()) as { recordings: RecordingView[] };
    expect(list.recordings.map((recording) => recording.key)).toEqual(keys);
  });
});
