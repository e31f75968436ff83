/**
 * A session's own page through the whole app (GET /ui/api/sessions/{key}): its details and events, a
 * cloud session's estimated cost, its browser's screenshot, and an ended session's recordings (links to its
 * video, logs, HAR and last screen, or why its video was not kept), for its owner and the admin only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pricesFor } from '../../functions/core/prices';
import type { SessionDetail } from '../../functions/http/ui/ui-views';
import { LocalRecordings } from '../../functions/pools/local/local-recordings';
import { jsonRequest, type NewSessionAnswer, W3C_CHROME } from '../support/fake-grid';
import { FixedClock, jsonAnswer } from '../support/fakes';
import { ALICE, BOB, GUEST, ROOT } from '../support/page-users';
import {
  expectPageError,
  newSessionAs,
  overviewAs,
  sessionApi,
  statusPageGrids,
} from '../support/status-page-grid';

const startGrid = statusPageGrids();
// A 1×1 PNG, as a browser's Take Screenshot answers: base64 in {"value": …}.
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('GET /ui/api/sessions/{key}', () => {
  it('shows the owner and the admin the session and its events, and nobody else', async () => {
    const grid = startGrid();
    const key = await newSessionAs(grid, ALICE, 'alice');
    const createdAt = grid.clock.now();
    grid.clock.advance(5_000);

    const response = await grid.app.request(sessionApi(key), { headers: ALICE });
    expect(response.status).toBe(200);
    const { session } = (await response.json()) as { session: SessionDetail };
    expect(session).toMatchObject({ key, user: 'alice', poolKind: 'local', state: 'running', ageMs: 5_000 });
    expect(session.events[0]).toEqual({ at: createdAt, what: 'created' });
    // A local browser is not billed per session: no cost on its page.
    expect(session.cost).toBeUndefined();
    expect(session.events.map((event) => event.what).join('; ')).toMatch(/idle timeout.*maximum age/);

    expect((await grid.app.request(sessionApi(key), { headers: ROOT })).status).toBe(200);
    await expectPageError(
      await grid.app.request(sessionApi(key), { headers: BOB }),
      404,
      'invalid session id',
    );
    await expectPageError(
      await grid.app.request(sessionApi(key), { headers: GUEST }),
      404,
      'invalid session id',
    );
    for (const unknown of ['0123456789abcdef', 'not.a.key', 'x'.repeat(65)]) {
      await expectPageError(
        await grid.app.request(sessionApi(unknown), { headers: ROOT }),
        404,
        'invalid session id',
      );
    }
  });
});

describe('a cloud session’s estimated cost on its page', () => {
  // A 1 vCPU / 2 GB x86 task on Spot, as the ecs launcher reports one.
  const billing = { capacity: 'spot', vcpu: 1, memoryGb: 2, architecture: 'x86_64' } as const;
  const { fargateX86, spotFactor } = pricesFor(undefined);
  const perSecond = ((fargateX86.vcpuHour + 2 * fargateX86.gbHour) / 3600) * spotFactor;

  it('shows the cost so far while it runs and the whole of it once ended', async () => {
    const clock = new FixedClock();
    const grid = startGrid({}, { billing: { ...billing, billedFrom: clock.now() } });
    const created = await grid.app.request('/session', jsonRequest('POST', W3C_CHROME, ALICE));
    const { sessionId } = ((await created.json()) as NewSessionAnswer).value;
    const check = grid.deps.tokens.verify(sessionId, 'alice');
    if (!check.ok) throw new Error('not alice’s session ID');
    const { key } = check.claims;
    const detail = async () =>
      (
        (await (await grid.app.request(sessionApi(key), { headers: ALICE })).json()) as {
          session: SessionDetail;
        }
      ).session;

    // Fargate's one-minute minimum, then per second.
    grid.clock.advance(5_000);
    expect((await detail()).cost).toEqual({
      dollars: expect.closeTo(60 * perSecond, 12),
      billedSeconds: 60,
      capacity: 'spot',
      final: false,
    });
    // The overview's running table shows the same figure for it.
    expect((await overviewAs(grid, ALICE)).sessions.find((session) => session.key === key)?.cost).toEqual(
      (await detail()).cost,
    );
    grid.clock.advance(85_000);
    const ended = await grid.app.request(`/session/${sessionId}`, { method: 'DELETE', headers: ALICE });
    expect(ended.status).toBe(200);
    expect((await detail()).cost).toEqual({
      dollars: expect.closeTo(90 * perSecond, 12),
      billedSeconds: 90,
      capacity: 'spot',
      final: true,
    });
  });
});

describe('GET /ui/api/sessions/{key}/screenshot', () => {
  it('gives the owner the browser’s own screenshot as PNG, without counting it as activity', async () => {
    const grid = startGrid();
    const key = await newSessionAs(grid, ALICE, 'alice');
    const upstream = grid.launcher.upstream();
    upstream.respond = (request) =>
      request.path.endsWith('/screenshot')
        ? jsonAnswer(200, { value: PNG_BASE64 })
        : jsonAnswer(200, { value: null });
    grid.clock.advance(20_000);

    const response = await grid.app.request(`${sessionApi(key)}/screenshot`, { headers: ALICE });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from(PNG_BASE64, 'base64'));
    const [browserSession] = upstream.sessionIds;
    expect(upstream.commands().map((command) => `${command.method} ${command.path}`)).toEqual([
      `GET /session/${browserSession}/screenshot`,
    ]);
    expect((await grid.deps.sessions.get(key))?.lastActivityAt).toBe(grid.clock.now() - 20_000);

    await expectPageError(
      await grid.app.request(`${sessionApi(key)}/screenshot`, { headers: BOB }),
      404,
      'invalid session id',
    );
    expect(upstream.commands()).toHaveLength(1);
  });

  it('answers a W3C error when the browser cannot take one', async () => {
    const grid = startGrid();
    const key = await newSessionAs(grid, ALICE, 'alice');
    grid.launcher.upstream().respond = () =>
      jsonAnswer(500, { value: { error: 'unable to capture screen', message: 'no window', stacktrace: '' } });
    await expectPageError(
      await grid.app.request(`${sessionApi(key)}/screenshot`, { headers: ALICE }),
      502,
      'unknown error',
      /HTTP 500: no window/,
    );
  });
});

describe('an ended session’s recordings on its page', () => {
  /** alice's session, ended by its DELETE, whose recordings a local pool kept as it does at a session's end. */
  async function endedWithRecordings(
    grid: ReturnType<typeof startGrid>,
    kept: { video?: boolean; videoNotKept?: string; endReason?: 'deleted' | 'idle timeout' },
  ) {
    const root = mkdtempSync(join(tmpdir(), 'gridgate-session-recordings-'));
    scratch.push(root);
    const recordings = new LocalRecordings(() => ({
      ...grid.deps.config.recording,
      directory: join(root, 'kept'),
    }));
    grid.deps.artifacts = { local: recordings };
    const key = await newSessionAs(grid, ALICE, 'alice');
    const record = await grid.deps.sessions.end(key, kept.endReason ?? 'deleted', grid.clock.now());
    if (!record) throw new Error('the session was not running');
    const file = (name: string, text: string) => {
      writeFileSync(join(root, name), text);
      return join(root, name);
    };
    await recordings.keep({
      session: {
        key,
        user: 'alice',
        pool: record.pool,
        browserName: 'chrome',
        browserVersion: '156',
        createdAt: record.createdAt,
        endedAt: grid.clock.now(),
        endReason: kept.endReason ?? 'deleted',
        ...(kept.videoNotKept ? { videoNotKept: kept.videoNotKept } : {}),
      },
      ...(kept.video
        ? { video: { path: file('video.mp4', 'the video'), format: 'mp4', fileName: `${key}.mp4` } }
        : {}),
      log: { path: file('driver.log', 'the driver log'), fileName: `${key}.log` },
      console: { path: file('console.log', 'console.error: total was 41'), fileName: `${key}.console.log` },
      har: { path: file('network.har', '{"log":{"version":"1.2"}}'), fileName: `${key}.har` },
      screenshot: Buffer.from('the last frame'),
    });
    return key;
  }
  const scratch: string[] = [];
  afterEach(() => {
    for (const root of scratch.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  it('links its video, logs, HAR and last screen for its owner and the admin, and each link serves it', async () => {
    const grid = startGrid();
    const key = await endedWithRecordings(grid, { video: true, endReason: 'idle timeout' });
    const at = (kind: string) => `ui/api/recordings/${key}/${kind}`;
    for (const viewer of [ALICE, ROOT]) {
      const { session } = (await (await grid.app.request(sessionApi(key), { headers: viewer })).json()) as {
        session: SessionDetail;
      };
      expect(session.recordings).toEqual({
        videoUrl: at('video'),
        logUrl: at('log'),
        consoleUrl: at('console'),
        harUrl: at('har'),
        screenshotUrl: at('screenshot'),
      });
    }
    const served = async (kind: string, headers: Record<string, string>) =>
      grid.app.request(`/${at(kind)}`, { headers });
    expect(await (await served('video', ALICE)).text()).toBe('the video');
    expect(await (await served('console', ALICE)).text()).toBe('console.error: total was 41');
    expect(await (await served('har', ROOT)).text()).toBe('{"log":{"version":"1.2"}}');
    // Another user: the page and every link are the 404 of a session that does not exist.
    await expectPageError(
      await grid.app.request(sessionApi(key), { headers: BOB }),
      404,
      'invalid session id',
    );
    for (const kind of ['video', 'log', 'console', 'har', 'screenshot']) {
      expect((await served(kind, BOB)).status).toBe(404);
    }
  });

  it('says why a video was not kept, and links no last screen for a session its client ended', async () => {
    const grid = startGrid();
    const why = 'not kept: the test passed (recording.keep: failed)';
    const key = await endedWithRecordings(grid, { videoNotKept: why });
    const { session } = (await (await grid.app.request(sessionApi(key), { headers: ALICE })).json()) as {
      session: SessionDetail;
    };
    expect(session.recordings).toEqual({
      logUrl: `ui/api/recordings/${key}/log`,
      consoleUrl: `ui/api/recordings/${key}/console`,
      harUrl: `ui/api/recordings/${key}/har`,
      videoNotKept: why,
    });
  });

  it('has none while the session runs, or when nothing was kept', async () => {
    const grid = startGrid();
    const running = await newSessionAs(grid, ALICE, 'alice');
    const read = async (key: string) =>
      (
        (await (await grid.app.request(sessionApi(key), { headers: ALICE })).json()) as {
          session: SessionDetail;
        }
      ).session;
    expect(await read(running)).not.toHaveProperty('recordings');
    const ended = await newSessionAs(grid, ALICE, 'alice');
    await grid.deps.sessions.end(ended, 'deleted', grid.clock.now());
    expect(await read(ended)).toMatchObject({ state: 'ended' });
    expect(await read(ended)).not.toHaveProperty('recordings');
  });
});
