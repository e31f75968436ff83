/**
 * An ended ecs session on the status page, as on AWS: the fake ECS API's task runs real chromedriver and
 * Chromium and logs as awslogs does (fake CloudWatch Logs), the recorder's upload is put in a fake S3 that
 * checks presigned signatures, and the session store is the DynamoDB one on dynalite. The session is listed
 * from the store for its owner and an admin, never for another user, found by its test name, and an admin
 * still gets its video and log once the store's usual hour for ended records has passed.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSessionStore } from '../../../../functions/adapters/aws/dynamo-session-store';
import { sessionPool } from '../../../../functions/core/grid-deps';
import { listedFromStore } from '../../../../functions/core/recorded-in-store';
import type { RecordingView } from '../../../../functions/http/ui/ui-views';
import { browserLogStreamPrefix } from '../../../../functions/pools/ecs/browser-log-stream';
import { CloudWatchBrowserLogs } from '../../../../functions/pools/ecs/cloudwatch-browser-logs';
import { ecsKept } from '../../../../functions/pools/ecs/ecs-recordings';
import { artifactsByKind } from '../../../../functions/pools/selenium-node/artifacts-by-kind';
import { S3Recordings, videoKey } from '../../../../functions/pools/selenium-node/s3-recordings';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../../../support/dynalite';
import { FakeCloudWatchLogs } from '../../../support/fake-cloudwatch-logs';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import { FAKE_S3_CREDENTIALS, FAKE_S3_REGION, FakeS3 } from '../../../support/fake-s3';
import { ALICE, BOB, openPageUsers, type PageUsers, ROOT } from '../../../support/page-users';
import { until } from '../../../support/until';

const TEST_MS = 120_000;
const HOUR = 60 * 60_000;
const GROUP = 'Gridgate-BrowsersLogs66D7675E-AbC';
const BUCKET = 'gridgate-recordingsbucket-1a2b3c4d';
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

let dynamo: DynaliteServer;
let table: SessionTableUnderTest;
let logs: FakeCloudWatchLogs;
let s3: FakeS3;
let users: PageUsers;
let fargate: FakeFargateGrid;
// How far the store's clock is ahead of the real one: moved on to let the ended record's hour pass.
let later = 0;

beforeAll(async () => {
  [dynamo, logs, s3] = await Promise.all([
    startDynalite(),
    FakeCloudWatchLogs.start(),
    FakeS3.start([BUCKET]),
  ]);
  logs.createLogGroup(GROUP);
  table = await dynamo.createSessionTable();
  users = openPageUsers();
  const sessions = new DynamoSessionStore({
    client: table.client,
    table: table.table,
    clock: { now: () => Date.now() + later },
  });
  fargate = await startFakeFargateGrid({
    awslogs: { logs, group: GROUP, streamPrefix: browserLogStreamPrefix({ name: 'fargate' }) },
    pool: { recorder: { image: 'selenium/video:ffmpeg-7.1-20250606' } },
    config: { usersFile: users.file, admins: ['root'], guest: null },
    users: users.directory,
    sessions,
  });
  const deps = fargate.grid.deps;
  const s3Client = new S3Client({
    region: FAKE_S3_REGION,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: FAKE_S3_CREDENTIALS,
  });
  const poolOf = (session: { pool: string; address: string }) => sessionPool(deps, session);
  // As grid-wiring.ts wires an ecs pool's recordings: found in S3 and CloudWatch Logs, listed from the store.
  deps.artifacts = {
    ecs: listedFromStore(
      artifactsByKind({
        video: new S3Recordings(s3Client, BUCKET),
        log: new CloudWatchBrowserLogs({ logs: logs.client(), group: GROUP, poolOf }),
      }),
      deps,
      'ecs',
      ecsKept,
    ),
  };
}, TEST_MS);

afterAll(async () => {
  await fargate?.close();
  await users?.close();
  await table?.close();
  await Promise.allSettled([dynamo?.close(), logs?.close(), s3?.close()]);
});

async function listed(who: Record<string, string>, search = ''): Promise<RecordingView[]> {
  const answer = await fetch(`${fargate.grid.url}/ui/api/recordings?q=${encodeURIComponent(search)}`, {
    headers: { ...who, accept: 'application/json' },
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { recordings: RecordingView[] }).recordings;
}

describe('an ended ecs session with recordings on the status page', { timeout: TEST_MS }, () => {
  it('is listed for its owner and an admin, found by name, and its video and log stay the admin’s to get', async () => {
    const created = await fetch(`${fargate.grid.url}/session`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...ALICE },
      body: JSON.stringify({
        capabilities: {
          alwaysMatch: {
            browserName: 'chrome',
            'se:recordVideo': true,
            'se:name': 'checkout on fargate',
            'goog:chromeOptions': { args: ['--headless=new', '--no-sandbox', '--disable-gpu'] },
          },
        },
      }),
    });
    const body = (await created.json()) as { value: { sessionId: string } };
    expect(created.status, JSON.stringify(body)).toBe(200);
    const id = body.value.sessionId;
    const { key } = fargate.grid.deps.tokens.unverifiedClaims(id) ?? { key: '?' };
    const ended = await fetch(`${fargate.grid.url}/session/${id}`, { method: 'DELETE', headers: ALICE });
    expect(ended.status).toBe(200);
    // The recorder uploads videos/{session key}.mp4 when the session ends.
    s3.put(BUCKET, videoKey(key), Buffer.from('a fragmented MP4'), 'binary/octet-stream');

    const [mine] = await listed(ALICE);
    expect(mine).toMatchObject({
      key,
      user: 'alice',
      pool: 'fargate',
      name: 'checkout on fargate',
      endReason: 'deleted',
      video: { format: 'mp4', fileName: `${key}.mp4` },
      log: { fileName: `${key}.log` },
      videoUrl: `ui/api/recordings/${key}/video`,
      logUrl: `ui/api/recordings/${key}/log`,
    });
    // Where its browser ran stays on the server.
    expect(mine).not.toHaveProperty('ranAt');
    expect((await listed(ROOT)).map((r) => r.key)).toEqual([key]);
    expect(await listed(BOB)).toEqual([]);
    expect((await listed(ROOT, 'CHECKOUT on')).map((r) => r.key)).toEqual([key]);
    expect(await listed(ROOT, 'login')).toEqual([]);

    // Two hours on: the ended record's usual hour is over, the recordings' retention (24 h) is not.
    later = 2 * HOUR;
    expect((await listed(ROOT)).map((r) => r.key)).toEqual([key]);
    const video = await fetch(`${fargate.grid.url}/ui/api/recordings/${key}/video`, {
      headers: ROOT,
      redirect: 'manual',
    });
    expect(video.status).toBe(302);
    const location = new URL(video.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${s3.endpoint}/${BUCKET}/videos/${key}.mp4`);
    const followed = await fetch(location);
    expect(followed.status).toBe(200);
    expect(await followed.text()).toBe('a fragmented MP4');
    // Selenoid's path too: the admin's request is checked against the owner the store still knows.
    expect(
      (await fetch(`${fargate.grid.url}/video/${id}.mp4`, { headers: ROOT, redirect: 'manual' })).status,
    ).toBe(302);
    // The log, found by the task the store remembers (the UI's request carries no session ID).
    await until(async () => {
      const log = await fetch(`${fargate.grid.url}/ui/api/recordings/${key}/log`, { headers: ROOT });
      return log.status === 200 && (await log.text()).includes('ChromeDriver was started successfully');
    }, 'the admin gets the task’s log');
    // Nobody else gets them, by key or by ID.
    expect((await fetch(`${fargate.grid.url}/ui/api/recordings/${key}/video`, { headers: BOB })).status).toBe(
      404,
    );
    expect((await fetch(`${fargate.grid.url}/video/${id}.mp4`, { headers: BOB })).status).toBe(404);

    // Past the retention it is neither listed nor served.
    later = 25 * HOUR;
    expect(await listed(ROOT)).toEqual([]);
    expect(
      (await fetch(`${fargate.grid.url}/ui/api/recordings/${key}/video`, { headers: ROOT })).status,
    ).toBe(404);
  });
});
