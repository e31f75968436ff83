/**
 * End to end on an ecs pool whose tasks run docker-selenium's video recorder beside the browser, as the CDK
 * app defines them (infra/browser-fleet.ts: a non-essential `video` container with recorder-environment.ts's
 * environment, depending on the browser's START, stopped first): each fake Fargate task runs the Selenium
 * server with Chromium headful on an X display, and the recorder's stand-in (fake-video-recorder.ts) films
 * that display with ffmpeg while a session that asked for a video runs, then puts it in the fake S3 when the
 * task stops (after the session was deleted, or under a running one). The video reached through gridgate's `GET /video/{id}.mp4` and its presigned redirect plays:
 * ffprobe reads an H.264 stream, its duration and its frames.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactsByKind } from '../../../../functions/pools/selenium-node/artifacts-by-kind';
import { S3Recordings, videoKey } from '../../../../functions/pools/selenium-node/s3-recordings';
import { endAllSessions } from '../../../../functions/use-cases/expire-sessions';
import type { FakeTask } from '../../../support/fake-ecs-api';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import { FAKE_S3_CREDENTIALS, FAKE_S3_REGION, FakeS3 } from '../../../support/fake-s3';
import { SCREEN } from '../../../support/loopback-vnc-browsers';
import { freePortBelowEphemeral } from '../../../support/processes';
import { recorderTaskDefinition } from '../../../support/recorder-task-definition';
import { type ProbedVideo, probeVideo } from '../../../support/video-probe';

// A JVM and a headful Chromium start in the task, and ffmpeg encodes beside them: slow on a loaded machine.
const TEST_MS = 240_000;
const BUCKET = 'gridgate-recordingsbucket-1a2b3c4d';
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
/** W3C WebDriver §12.4.1: the key under which an element reference is returned. */
const ELEMENT = 'element-6066-11e4-a52e-4a4fb5b3f2f4';

let s3: FakeS3;
let fargate: FakeFargateGrid;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gridgate-ecs-video-'));
  s3 = await FakeS3.start([BUCKET]);
  const s3Client = new S3Client({
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
    pool: { recorder: { image: 'selenium/video:ffmpeg-7.1-20250606' } },
    config: { timeouts: { newSession: '180s' } },
    // As pools/ecs/ecs-recordings.ts finds an ecs pool's videos: in the recordings bucket.
    artifacts: { ecs: artifactsByKind({ video: new S3Recordings(s3Client, BUCKET) }) },
  });
}, TEST_MS);

afterAll(async () => {
  await fargate?.close();
  await s3?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
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

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A session that asks for a video, and about three seconds of something to see in it: the page, a name typed
 * key by key, the greeting, another page. Its ID, its key (the video's name) and its task.
 */
async function recordedSession(): Promise<{ id: string; key: string; task: FakeTask }> {
  const created = await call('POST', '/session', {
    capabilities: { alwaysMatch: { browserName: 'chrome', 'se:recordVideo': true } },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const id = created.json.value.sessionId as string;
  const { key } = fargate.grid.deps.tokens.unverifiedClaims(id) ?? { key: '?' };
  const task = [...fargate.fake.tasks.values()].at(-1) as FakeTask;
  expect((await call('POST', `/session/${id}/url`, { url: `${fargate.site.url}/` })).status).toBe(200);
  const field = await call('POST', `/session/${id}/element`, { using: 'css selector', value: '#name' });
  const name = field.json.value[ELEMENT] as string;
  for (const letter of 'recorded on fargate') {
    await call('POST', `/session/${id}/element/${name}/value`, { text: letter });
    await pause(100);
  }
  const greet = await call('POST', `/session/${id}/element`, { using: 'css selector', value: '#greet' });
  await call('POST', `/session/${id}/element/${greet.json.value[ELEMENT]}/click`, {});
  await pause(500);
  expect((await call('POST', `/session/${id}/url`, { url: `${fargate.site.url}/second` })).status).toBe(200);
  await pause(500);
  return { id, key, task };
}

/** What the recorder uploaded for the session: one video, finished while its display was still there. */
async function expectUploaded(task: FakeTask, key: string): Promise<void> {
  const puts = s3.calls.filter((c) => c.method === 'PUT' && c.key === videoKey(key));
  // rclone's upload, as the fake S3 saw it: a PutObject signed in its Authorization header.
  expect(puts).toEqual([{ method: 'PUT', bucket: BUCKET, key: videoKey(key), auth: 'header', status: 200 }]);
  expect((await task.recorder)?.uploads).toEqual([
    { bucket: BUCKET, key: videoKey(key), bytes: expect.any(Number), lostDisplay: false },
  ]);
}

/** `GET /video/{id}.mp4` through gridgate, its presigned redirect followed: ffprobe reads what it serves. */
async function servedVideo(id: string, key: string): Promise<ProbedVideo> {
  const redirected = await fetch(`${fargate.grid.url}/video/${id}.mp4`, { redirect: 'manual' });
  expect(redirected.status).toBe(302);
  const location = new URL(redirected.headers.get('location') ?? '');
  expect(`${location.origin}${location.pathname}`).toBe(`${s3.endpoint}/${BUCKET}/videos/${key}.mp4`);
  const followed = await fetch(location);
  expect(followed.status).toBe(200);
  expect(followed.headers.get('content-type')).toBe('video/mp4');
  const file = join(dir, `${key}.mp4`);
  writeFileSync(file, Buffer.from(await followed.arrayBuffer()));
  return probeVideo(file);
}

function expectPlays(video: ProbedVideo): void {
  expect(video).toMatchObject({ codec: 'h264', width: SCREEN.width, height: SCREEN.height });
  expect(video.durationSeconds).toBeGreaterThan(1);
  expect(video.frames).toBeGreaterThan(10);
}

describe('an ecs session’s video recorded by the task’s recorder', { timeout: TEST_MS }, () => {
  it('is uploaded once the session is deleted, and plays when served through gridgate', async () => {
    const { id, key, task } = await recordedSession();
    // The node ends the session (the recorder sees it gone and finishes), then StopTask stops the task.
    expect((await call('DELETE', `/session/${id}`)).status).toBe(200);
    await expectUploaded(task, key);
    expectPlays(await servedVideo(id, key));
  });

  it('is finished before the browser stops when the task is stopped under a running session', async () => {
    const { id, key, task } = await recordedSession();
    // The router's shutdown (as the idle and max-age expiry) stops the task with no DELETE to the node: the
    // recorder, stopped first (the reverse of its dependsOn), still has the display to finish the file on.
    await endAllSessions(fargate.grid.deps, 'server shutdown');
    expect(fargate.fake.callsOf('StopTask').at(-1)).toMatchObject({ task: task.id });
    await expectUploaded(task, key);
    expectPlays(await servedVideo(id, key));
  });
});
