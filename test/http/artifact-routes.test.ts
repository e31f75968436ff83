/**
 * Selenoid's /video/{id}.mp4 and /logs/{id}.log through the whole app, over the local disk store: the owner
 * and an admin get them (with byte ranges for a video element) and may remove them (DELETE, as Selenoid),
 * everyone else and every unknown ID the same 404, and /status shows the disk they use; the console log and
 * HAR a local pool captured are served and removed beside them (/console/{id}.log, /har/{id}.har).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalRecordings } from '../../functions/pools/local/local-recordings';
import {
  expectW3cError,
  type FakeGrid,
  gridWithUsers,
  jsonRequest,
  type NewSessionAnswer,
  signedInAs,
  W3C_CHROME,
} from '../support/fake-grid';

let root: string;
let grid: FakeGrid;
let recordings: LocalRecordings;
let live: Record<string, string>;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gridgate-artifacts-http-'));
  grid = gridWithUsers({ config: { admins: ['root'], guest: null } });
  live = {};
  recordings = new LocalRecordings(
    () => ({ ...grid.deps.config.recording, directory: join(root, 'kept') }),
    (key) => (live[key] ? { path: live[key] as string, fileName: `${key}.log` } : undefined),
  );
  grid.deps.artifacts = { local: recordings };
});
afterEach(async () => {
  await grid.close();
  rmSync(root, { recursive: true, force: true });
});

async function sessionOf(user: string): Promise<{ id: string; key: string }> {
  const response = await grid.app.request('/session', jsonRequest('POST', W3C_CHROME, signedInAs(user)));
  const body = (await response.json()) as NewSessionAnswer;
  expect(response.status).toBe(200);
  const id = body.value.sessionId;
  const claims = grid.deps.tokens.verify(id, user);
  if (!claims.ok) throw new Error('the new session ID does not verify');
  return { id, key: claims.claims.key };
}

/** Ends the session and keeps a video and a log for it, as the local launcher does when a session ends. */
async function endWithRecordings(
  user: string,
  { id, key }: { id: string; key: string },
  video: Buffer,
  log: string,
) {
  await grid.app.request(`/session/${id}`, { method: 'DELETE', headers: signedInAs(user) });
  const videoPath = join(root, `${key}.mp4`);
  const logPath = join(root, `${key}.log`);
  writeFileSync(videoPath, video);
  writeFileSync(logPath, log);
  const now = grid.clock.now();
  await recordings.keep({
    session: {
      key,
      user,
      pool: 'local',
      browserName: 'chrome',
      browserVersion: '156',
      createdAt: now - 5000,
      endedAt: now,
    },
    video: { path: videoPath, format: 'mp4', fileName: 'login.mp4' },
    log: { path: logPath, fileName: `${key}.log` },
  });
}

describe('recordings on Selenoid’s paths', () => {
  const video = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));

  it('serves the owner the video and the log of an ended session, with ggr’s paths too', async () => {
    const session = await sessionOf('alice');
    const { id } = session;
    await endWithRecordings('alice', session, video, 'INFO: COMMAND Navigate\n');
    const answer = await grid.app.request(`/video/${id}.mp4`, { headers: signedInAs('alice') });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('video/mp4');
    expect(answer.headers.get('content-disposition')).toBe('inline; filename="login.mp4"');
    expect(answer.headers.get('content-length')).toBe('1000');
    expect(Buffer.from(await answer.arrayBuffer()).equals(video)).toBe(true);
    const log = await grid.app.request(`/logs/${id}.log`, { headers: signedInAs('alice') });
    expect(log.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await log.text()).toBe('INFO: COMMAND Navigate\n');
    expect((await grid.app.request(`/video/${id}`, { headers: signedInAs('alice') })).status).toBe(200);
    expect((await grid.app.request(`/logs/${id}`, { headers: signedInAs('alice') })).status).toBe(200);
  });

  it('answers one byte range, as a video element seeking asks', async () => {
    const session = await sessionOf('alice');
    const { id } = session;
    await endWithRecordings('alice', session, video, '');
    const part = await grid.app.request(`/video/${id}.mp4`, {
      headers: { ...signedInAs('alice'), range: 'bytes=10-19' },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 10-19/1000');
    expect(Buffer.from(await part.arrayBuffer()).equals(video.subarray(10, 20))).toBe(true);
    const tail = await grid.app.request(`/video/${id}.mp4`, {
      headers: { ...signedInAs('alice'), range: 'bytes=-5' },
    });
    expect(Buffer.from(await tail.arrayBuffer()).equals(video.subarray(995))).toBe(true);
    const outside = await grid.app.request(`/video/${id}.mp4`, {
      headers: { ...signedInAs('alice'), range: 'bytes=5000-' },
    });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe('bytes */1000');
  });

  it('serves an admin any session’s recordings, and nobody else', async () => {
    const session = await sessionOf('alice');
    const { id } = session;
    await endWithRecordings('alice', session, video, 'log');
    expect((await grid.app.request(`/video/${id}.mp4`, { headers: signedInAs('root') })).status).toBe(200);
    expect(await (await grid.app.request(`/logs/${id}.log`, { headers: signedInAs('root') })).text()).toBe(
      'log',
    );
    const bob = await grid.app.request(`/video/${id}.mp4`, { headers: signedInAs('bob') });
    await expectW3cError(bob, 404, 'invalid session id');
    expect(grid.logger.fieldsOf('SESSION_ID_REJECTED').at(-1)).toMatchObject({
      user: 'bob',
      reason: 'artifact',
    });
  });

  it('answers an unknown, forged or missing ID exactly as another user’s', async () => {
    const session = await sessionOf('alice');
    const { id } = session;
    await endWithRecordings('alice', session, video, 'log');
    const forged = `${id.slice(0, -4)}${id.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    const bodies = new Set<string>();
    for (const path of [`/video/${forged}.mp4`, '/video/nothing.mp4', `/logs/${forged}.log`]) {
      for (const user of ['bob', 'root']) {
        const answer = await grid.app.request(path, { headers: signedInAs(user) });
        expect(answer.status, path).toBe(404);
        bodies.add(await answer.text());
      }
    }
    bodies.add(await (await grid.app.request(`/video/${id}.mp4`, { headers: signedInAs('bob') })).text());
    expect(bodies.size).toBe(1);
    // Not a session ID at all: no path of a session's.
    expect((await grid.app.request('/video/..%2Fmeta.json', { headers: signedInAs('alice') })).status).toBe(
      404,
    );
  });

  it('says a session has no video when it recorded none, and refuses other methods', async () => {
    const { id } = await sessionOf('alice');
    const none = await grid.app.request(`/video/${id}.mp4`, { headers: signedInAs('alice') });
    await expectW3cError(none, 404, 'invalid session id', /no video of this session/);
    await expectW3cError(
      await grid.app.request(`/video/${id}.mp4`, { method: 'POST', headers: signedInAs('alice') }),
      405,
      'unknown method',
    );
  });

  it('removes the video, then the log, on DELETE as Selenoid does; the session goes once it has neither', async () => {
    const session = await sessionOf('alice');
    const { id, key } = session;
    await endWithRecordings('alice', session, video, 'log');
    const removed = await grid.app.request(`/video/${id}.mp4`, {
      method: 'DELETE',
      headers: signedInAs('alice'),
    });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ value: null });
    await expectW3cError(
      await grid.app.request(`/video/${id}.mp4`, { headers: signedInAs('alice') }),
      404,
      'invalid session id',
      /no video of this session/,
    );
    await expectW3cError(
      await grid.app.request(`/video/${id}`, { method: 'DELETE', headers: signedInAs('alice') }),
      404,
      'invalid session id',
      /no video of this session/,
    );
    expect((await recordings.list()).map((r) => [r.key, r.video, r.log?.size])).toEqual([
      [key, undefined, 3],
    ]);
    expect(existsSync(join(root, 'kept', key, 'video.mp4'))).toBe(false);
    expect(
      (await grid.app.request(`/logs/${id}`, { method: 'DELETE', headers: signedInAs('alice') })).status,
    ).toBe(200);
    expect(await recordings.list()).toEqual([]);
    expect(existsSync(join(root, 'kept', key))).toBe(false);
  });

  it('lets an admin remove a session’s recordings, and nobody else', async () => {
    const session = await sessionOf('alice');
    const { id } = session;
    await endWithRecordings('alice', session, video, 'log');
    const bob = await grid.app.request(`/video/${id}.mp4`, { method: 'DELETE', headers: signedInAs('bob') });
    await expectW3cError(bob, 404, 'invalid session id');
    expect((await grid.app.request(`/video/${id}.mp4`, { headers: signedInAs('alice') })).status).toBe(200);
    expect(
      (await grid.app.request(`/video/${id}.mp4`, { method: 'DELETE', headers: signedInAs('root') })).status,
    ).toBe(200);
  });

  it('refuses DELETE with 405 where recordings are only removed by their retention (a bucket’s)', async () => {
    const { id } = await sessionOf('alice');
    grid.deps.artifacts = { local: { find: async () => undefined } };
    await expectW3cError(
      await grid.app.request(`/video/${id}.mp4`, { method: 'DELETE', headers: signedInAs('alice') }),
      405,
      'unknown method',
      /removed when their retention ends/,
    );
  });

  it('does not remove a running session’s log', async () => {
    const { id, key } = await sessionOf('alice');
    live[key] = join(root, 'live.log');
    writeFileSync(live[key] as string, 'first line\n');
    await expectW3cError(
      await grid.app.request(`/logs/${id}.log`, { method: 'DELETE', headers: signedInAs('alice') }),
      404,
      'invalid session id',
      /not finished yet/,
    );
    expect(existsSync(live[key] as string)).toBe(true);
  });

  it('serves a running session’s log as far as it is written', async () => {
    const { id, key } = await sessionOf('alice');
    live[key] = join(root, 'live.log');
    writeFileSync(live[key] as string, 'first line\n');
    expect(await (await grid.app.request(`/logs/${id}.log`, { headers: signedInAs('alice') })).text()).toBe(
      'first line\n',
    );
    writeFileSync(live[key] as string, 'first line\nsecond line\n');
    expect(await (await grid.app.request(`/logs/${id}.log`, { headers: signedInAs('alice') })).text()).toBe(
      'first line\nsecond line\n',
    );
  });

  it('shows in /status what the kept recordings use and may use', async () => {
    const session = await sessionOf('alice');
    const { key } = session;
    await endWithRecordings('alice', session, video, 'abc');
    const status = (await (await grid.app.request('/status')).json()) as { value: { recordings: unknown[] } };
    expect(status.value.recordings).toEqual([
      {
        where: `disk ${join(root, 'kept')}`,
        bytes: 1003,
        sessions: 1,
        maxBytes: 2 * 1024 ** 3,
        retentionMs: 24 * 3600_000,
      },
    ]);
    expect(readFileSync(join(root, 'kept', key, 'video.mp4')).equals(video)).toBe(true);
  });
});

describe('the console log and HAR the grid captured, beside them', () => {
  /** Ends the session keeping only a console log and a HAR, as a local session that asked for both. */
  async function endWithCaptures(user: string, { id, key }: { id: string; key: string }) {
    await grid.app.request(`/session/${id}`, { method: 'DELETE', headers: signedInAs(user) });
    const consolePath = join(root, `${key}.console.log`);
    const harPath = join(root, `${key}.har`);
    writeFileSync(consolePath, '2026-12-06T08:00:00.000Z error console.error total was 41\n');
    writeFileSync(harPath, '{"log":{"version":"1.2","entries":[]}}');
    const now = grid.clock.now();
    await recordings.keep({
      session: {
        key,
        user,
        pool: 'local',
        browserName: 'chrome',
        browserVersion: '156',
        createdAt: now,
        endedAt: now,
      },
      console: { path: consolePath, fileName: `${key}.console.log` },
      har: { path: harPath, fileName: `${key}.har` },
    });
  }

  it('serves them to the owner and an admin, ggr-style too, the same 404 to anyone else', async () => {
    const session = await sessionOf('alice');
    const { id } = session;
    await endWithCaptures('alice', session);
    const consoleLog = await grid.app.request(`/console/${id}.log`, { headers: signedInAs('alice') });
    expect(consoleLog.status).toBe(200);
    expect(consoleLog.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await consoleLog.text()).toContain('total was 41');
    const har = await grid.app.request(`/har/${id}.har`, { headers: signedInAs('root') });
    expect(har.status).toBe(200);
    expect(har.headers.get('content-type')).toBe('application/json');
    expect(await har.json()).toEqual({ log: { version: '1.2', entries: [] } });
    expect((await grid.app.request(`/har/${id}`, { headers: signedInAs('alice') })).status).toBe(200);
    for (const path of [`/console/${id}.log`, `/har/${id}.har`]) {
      await expectW3cError(
        await grid.app.request(path, { headers: signedInAs('bob') }),
        404,
        'invalid session id',
      );
    }
    // The session kept no video or driver log.
    await expectW3cError(
      await grid.app.request(`/video/${id}.mp4`, { headers: signedInAs('alice') }),
      404,
      'invalid session id',
    );
  });

  it('removes one on DELETE, the session staying listed while it has the other', async () => {
    const session = await sessionOf('alice');
    const { id, key } = session;
    await endWithCaptures('alice', session);
    const removed = await grid.app.request(`/har/${id}.har`, {
      method: 'DELETE',
      headers: signedInAs('alice'),
    });
    expect(removed.status).toBe(200);
    await expectW3cError(
      await grid.app.request(`/har/${id}.har`, { headers: signedInAs('alice') }),
      404,
      'invalid session id',
    );
    expect((await recordings.recorded(key))?.console).toBeDefined();
    await grid.app.request(`/console/${id}.log`, { method: 'DELETE', headers: signedInAs('alice') });
    expect(await recordings.recorded(key)).toBeUndefined();
  });
});
