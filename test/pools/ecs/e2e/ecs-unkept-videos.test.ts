/**
 * `recording.keep: "failed"` on an ecs pool whose tasks run docker-selenium's recorder, end to end: each fake
 * Fargate task runs the Selenium server with Chromium on an X display and the recorder's stand-in, which
 * films it and puts the video in the S3 fake (signed PutObject) once the task is stopped, after the session's
 * end. One test says it failed (Grid 4.41's se/event), one that it passed (Sauce Labs' executor script).
 * The status page says at once why the passed one's video is missing; the cleanup pass, once the uploads are
 * over, deletes that video from the bucket with DeleteObject and leaves the failed one's, which gridgate
 * still serves.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listedFromStore } from '../../../../functions/core/recorded-in-store';
import { UPLOAD_SETTLED_MS } from '../../../../functions/core/unkept-videos';
import { orphanCleanup } from '../../../../functions/entry/aws-cleanup';
import type { RecordingView } from '../../../../functions/http/ui/ui-views';
import { makeEcsCleanup } from '../../../../functions/pools/ecs/ecs-cleanup';
import { ecsKept } from '../../../../functions/pools/ecs/ecs-recordings';
import { artifactsByKind } from '../../../../functions/pools/selenium-node/artifacts-by-kind';
import { S3Recordings, videoKey } from '../../../../functions/pools/selenium-node/s3-recordings';
import { S3VideoDeleter } from '../../../../functions/pools/selenium-node/s3-video-deleter';
import { NO_AWS_IDENTITY } from '../../../support/cleanup-runs';
import type { FakeTask } from '../../../support/fake-ecs-api';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import { FAKE_S3_CREDENTIALS, FAKE_S3_REGION, FakeS3 } from '../../../support/fake-s3';
import { RecordingMetrics } from '../../../support/fakes';
import { freePortBelowEphemeral } from '../../../support/processes';
import { recorderTaskDefinition } from '../../../support/recorder-task-definition';

// A JVM and a headful Chromium start in each task, and ffmpeg encodes beside them: slow on a loaded machine.
const TEST_MS = 300_000;
const BUCKET = 'gridgate-recordingsbucket-1a2b3c4d';
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
const NOT_KEPT = 'not kept: the test passed (recording.keep: failed)';
const RECORDED_MS = 3000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let s3: FakeS3;
let s3Client: S3Client;
let fargate: FakeFargateGrid;

beforeAll(async () => {
  s3 = await FakeS3.start([BUCKET]);
  s3Client = new S3Client({
    region: FAKE_S3_REGION,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: FAKE_S3_CREDENTIALS,
  });
  const containerPort = await freePortBelowEphemeral();
  fargate = await startFakeFargateGrid({
    containerPort,
    taskDefinition: recorderTaskDefinition(containerPort, BUCKET),
    recorderS3: { endpoint: s3.endpoint, credentials: FAKE_S3_CREDENTIALS },
    pool: { recorder: { image: 'selenium/video:ffmpeg-7.1-20250606' }, keep: 'failed' },
    config: { timeouts: { newSession: '180s' } },
  });
  const deps = fargate.grid.deps;
  // As grid-wiring.ts wires an ecs pool's recordings: found in the bucket, listed from the store.
  deps.artifacts = {
    ecs: listedFromStore(
      artifactsByKind({ video: new S3Recordings(s3Client, BUCKET) }),
      deps,
      'ecs',
      ecsKept,
    ),
  };
}, TEST_MS);

afterAll(async () => {
  await fargate?.close();
  await s3?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: WebDriver answers are free-form JSON, read field by field.
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${fargate.grid.url}${path}`, {
    method,
    headers: JSON_HEADERS,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

/** A recorded session that opens the test page, says how it went with `mark`, and ends by its DELETE. */
async function markedSession(
  mark: (id: string) => Promise<{ status: number }>,
): Promise<{ id: string; key: string; task: FakeTask }> {
  const created = await call('POST', '/session', {
    capabilities: { alwaysMatch: { browserName: 'chrome', 'se:recordVideo': true } },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const id = created.json.value.sessionId as string;
  const { key } = fargate.grid.deps.tokens.unverifiedClaims(id) ?? { key: '?' };
  const task = [...fargate.fake.tasks.values()].at(-1) as FakeTask;
  expect((await call('POST', `/session/${id}/url`, { url: `${fargate.site.url}/` })).status).toBe(200);
  // The recorder looks at the node's /status once a second: a session it never saw is never filmed.
  await pause(RECORDED_MS);
  expect((await mark(id)).status).toBe(200);
  expect((await call('DELETE', `/session/${id}`)).status).toBe(200);
  return { id, key, task };
}

/** The cleanup Lambda's pass, on a clock `ahead` ms past the real one. */
async function cleanupPass(ahead: number) {
  const { config, sessions, logger } = fargate.grid.deps;
  const cleanup = await orphanCleanup({
    sessions,
    config,
    logger,
    metrics: new RecordingMetrics(),
    clock: { now: () => Date.now() + ahead },
    sleep: async () => {},
    aws: NO_AWS_IDENTITY,
    recordings: { bucket: BUCKET, region: FAKE_S3_REGION },
    videoDeleter: new S3VideoDeleter(async () => s3Client),
    makers: { ecs: (context) => makeEcsCleanup(context, fargate.fake.client()) },
  });
  return cleanup();
}

async function listed(): Promise<Map<string, RecordingView>> {
  const answer = await fetch(`${fargate.grid.url}/ui/api/recordings`, {
    headers: { accept: 'application/json' },
  });
  expect(answer.status).toBe(200);
  const { recordings } = (await answer.json()) as { recordings: RecordingView[] };
  return new Map(recordings.map((recording) => [recording.key, recording]));
}

const deletions = () => s3.calls.filter((c) => c.method === 'DELETE');

describe('recording.keep "failed" on an ecs pool whose recorder uploads to S3', { timeout: TEST_MS }, () => {
  it('deletes the passed session’s video from the bucket once uploaded, and keeps the failed one’s', async () => {
    const failed = await markedSession((id) =>
      call('POST', `/session/${id}/se/event`, {
        eventType: 'test:failed',
        payload: { testName: 'checkout', error: 'total was 41' },
      }),
    );
    const passed = await markedSession((id) =>
      call('POST', `/session/${id}/execute/sync`, { script: 'sauce:job-result=passed', args: [] }),
    );
    // Both recorders uploaded, after their sessions' ends, as docker-selenium's do.
    for (const { task, key } of [failed, passed]) {
      expect((await task.recorder)?.uploads).toEqual([
        { bucket: BUCKET, key: videoKey(key), bytes: expect.any(Number), lostDisplay: false },
      ]);
      expect(s3.object(BUCKET, videoKey(key))).toBeDefined();
    }

    // The status page says at once why the passed session has no video, as for a local session.
    const shown = await listed();
    expect(shown.get(passed.key)).toMatchObject({ result: { status: 'passed' }, videoNotKept: NOT_KEPT });
    expect(shown.get(passed.key)).not.toHaveProperty('video');
    expect(shown.get(failed.key)).toMatchObject({
      result: { status: 'failed', reason: 'total was 41' },
      video: { format: 'mp4', fileName: `${failed.key}.mp4` },
    });
    expect(shown.get(failed.key)).not.toHaveProperty('videoNotKept');

    // A pass while the uploads may still be under way deletes nothing.
    await cleanupPass(0);
    expect(deletions()).toEqual([]);

    // The next passes, once they are over: DeleteObject for the passed one's video only, each time (S3
    // answers 204 for a key already gone).
    await cleanupPass(UPLOAD_SETTLED_MS);
    await cleanupPass(UPLOAD_SETTLED_MS + 60_000);
    const deleted = {
      method: 'DELETE',
      bucket: BUCKET,
      key: videoKey(passed.key),
      auth: 'header',
      status: 204,
    };
    expect(deletions()).toEqual([deleted, deleted]);
    expect(s3.object(BUCKET, videoKey(passed.key))).toBeUndefined();
    expect(s3.object(BUCKET, videoKey(failed.key))).toBeDefined();
    expect(fargate.logger.fieldsOf('UNKEPT_VIDEOS_DELETED')).toContainEqual(
      expect.objectContaining({ deleted: 1, failed: 0, sessions: [passed.key] }),
    );

    // gridgate serves the failed one's video, and has none for the passed one.
    expect((await fetch(`${fargate.grid.url}/video/${failed.id}.mp4`, { redirect: 'manual' })).status).toBe(
      302,
    );
    expect((await fetch(`${fargate.grid.url}/video/${passed.id}.mp4`, { redirect: 'manual' })).status).toBe(
      404,
    );
  });
});
