/**
 * `recording.keep: "failed"` on an eks pool whose recorder uploads to a bucket, end to end: the real app with
 * an EksLauncher on the fake Kubernetes API (each pod runs a real chromedriver and Chromium), the S3 fake as
 * the bucket. The fake pods run no recorder, so each video is put as the recorder's upload lands, after the
 * pod is deleted. A test that said nothing and one that said it failed (Sauce Labs' executor script): the
 * status page says why the silent one's video is missing, and the cleanup pass, as the cleanup Lambda runs
 * it, deletes that video from the pool's bucket once the upload is over and keeps the failed one's.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../../../functions/adapters/memory/memory-session-store';
import { sessionPool } from '../../../../functions/core/grid-deps';
import { listedFromStore } from '../../../../functions/core/recorded-in-store';
import { UPLOAD_SETTLED_MS } from '../../../../functions/core/unkept-videos';
import { orphanCleanup } from '../../../../functions/entry/aws-cleanup';
import type { RecordingView } from '../../../../functions/http/ui/ui-views';
import { makeEksCleanup } from '../../../../functions/pools/eks/eks-cleanup';
import { EksLauncher } from '../../../../functions/pools/eks/eks-launcher';
import { eksKept, eksRecordings } from '../../../../functions/pools/eks/eks-recordings';
import { PodLogArchive } from '../../../../functions/pools/eks/pod-log-archive';
import { videoKey } from '../../../../functions/pools/selenium-node/s3-recordings';
import { S3VideoDeleter } from '../../../../functions/pools/selenium-node/s3-video-deleter';
import { NO_AWS_IDENTITY } from '../../../support/cleanup-runs';
import { FakeKubernetesApi } from '../../../support/fake-kubernetes-api';
import { FAKE_S3_CREDENTIALS, FAKE_S3_REGION, FakeS3 } from '../../../support/fake-s3';
import { CollectingLogger, RecordingMetrics } from '../../../support/fakes';
import { LoopbackChromedrivers } from '../../../support/loopback-chromedrivers';
import { configWithOnePool } from '../../../support/one-pool-config';
import { freePort, processGroupAlive } from '../../../support/processes';
import { type ServedApp, serveApp } from '../../../support/served-app';

const TEST_MS = 90_000;
const TOKEN = 'k8s-aws-v1.e2e-unkept';
const BUCKET = 'gridgate-recordingsbucket-e2e2';
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

let kube: FakeKubernetesApi;
let s3: FakeS3;
let s3Client: S3Client;
let containers: LoopbackChromedrivers;
let grid: ServedApp;
const logger = new CollectingLogger();

beforeAll(async () => {
  const port = await freePort();
  containers = new LoopbackChromedrivers(port);
  // 127.0.3.x: apart from the other fake pods' and tasks' loopback IPs, should the suites run at once.
  [kube, s3] = await Promise.all([
    FakeKubernetesApi.start({ token: TOKEN, podIp: (n) => `127.0.3.${n + 1}`, containers }),
    FakeS3.start([BUCKET]),
  ]);
  const api = kube.podApi();
  s3Client = new S3Client({
    region: FAKE_S3_REGION,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: FAKE_S3_CREDENTIALS,
  });
  const archive = new PodLogArchive({ s3Client: async () => s3Client, logger });
  grid = await serveApp({
    config: configWithOnePool(
      'pods',
      {
        kind: 'eks',
        cluster: 'browsers',
        endpoint: 'https://kubernetes.invalid',
        networks: ['127.0.0.0/8'],
        port,
        keep: 'failed',
        recorder: { image: 'selenium/video:ffmpeg-7.1', bucket: BUCKET, region: FAKE_S3_REGION },
      },
      { port: 0, host: '127.0.0.1' },
    ),
    runtimes: {
      eks: {
        launcher: new EksLauncher({ podApi: () => api, logger, keepLog: (toKeep) => archive.keep(toKeep) }),
      },
    },
    sessions: new MemorySessionStore(),
    logger,
  });
  // As grid-wiring.ts wires an eks pool's recordings: found in the bucket, listed from the store.
  grid.deps.artifacts = {
    eks: listedFromStore(
      eksRecordings((session) => sessionPool(grid.deps, session), {
        s3Client: async () => s3Client,
        podApis: { aws: async () => () => api },
      }),
      grid.deps,
      'eks',
      eksKept,
    ),
  };
}, TEST_MS);

afterAll(async () => {
  await grid?.close();
  await kube?.close();
  await s3?.close();
  for (const container of containers?.containers.values() ?? [])
    expect(processGroupAlive(container.pid)).toBe(false);
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${grid.url}${path}`, {
    method,
    headers: JSON_HEADERS,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as { value: Record<string, unknown> } };
}

/** A recorded session that runs `test`, then ends by its DELETE; its key (the video's name). */
async function recordedSession(test: (id: string) => Promise<void>): Promise<string> {
  const created = await call('POST', '/session', {
    capabilities: {
      alwaysMatch: {
        browserName: 'chrome',
        'se:recordVideo': true,
        'goog:chromeOptions': { args: ['--headless=new', '--no-sandbox', '--disable-gpu'] },
      },
    },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const id = created.json.value.sessionId as string;
  await test(id);
  expect((await call('DELETE', `/session/${id}`)).status).toBe(200);
  const key = grid.deps.tokens.unverifiedClaims(id)?.key ?? '?';
  // The recorder's upload, which lands once the pod was told to stop.
  s3.put(BUCKET, videoKey(key), Buffer.from(`video of ${key}`), 'binary/octet-stream');
  return key;
}

/** The cleanup Lambda's pass over eks pools, on a clock `ahead` ms past the real one. */
async function cleanupPass(ahead: number) {
  const { config, sessions } = grid.deps;
  const cleanup = await orphanCleanup({
    sessions,
    config,
    logger,
    metrics: new RecordingMetrics(),
    clock: { now: () => Date.now() + ahead },
    aws: NO_AWS_IDENTITY,
    videoDeleter: new S3VideoDeleter(async () => s3Client),
    makers: {
      eks: (context) => makeEksCleanup(context, { api: () => kube.podApi(), keepLog: async () => {} }),
    },
  });
  return cleanup();
}

describe('recording.keep "failed" on an eks pool whose recorder uploads to S3', { timeout: TEST_MS }, () => {
  it('deletes the silent session’s video from the pool’s bucket once uploaded, and keeps the failed one’s', async () => {
    const silent = await recordedSession(async () => {});
    const failed = await recordedSession(async (id) => {
      const marked = await call('POST', `/session/${id}/execute/sync`, {
        script: 'sauce:job-result=failed',
        args: [],
      });
      expect(marked.status).toBe(200);
    });

    const answer = await fetch(`${grid.url}/ui/api/recordings`, { headers: { accept: 'application/json' } });
    const shown = new Map(
      ((await answer.json()) as { recordings: RecordingView[] }).recordings.map((r) => [r.key, r]),
    );
    expect(shown.get(silent)).toMatchObject({
      videoNotKept: 'not kept: no failure was reported (recording.keep: failed)',
    });
    expect(shown.get(silent)).not.toHaveProperty('video');
    expect(shown.get(failed)).toMatchObject({ result: { status: 'failed' }, video: { format: 'mp4' } });

    await cleanupPass(0);
    expect(s3.calls.filter((c) => c.method === 'DELETE')).toEqual([]);
    await cleanupPass(UPLOAD_SETTLED_MS);
    expect(s3.calls.filter((c) => c.method === 'DELETE')).toEqual([
      { method: 'DELETE', bucket: BUCKET, key: videoKey(silent), auth: 'header', status: 204 },
    ]);
    expect(s3.object(BUCKET, videoKey(silent))).toBeUndefined();
    expect(s3.object(BUCKET, videoKey(failed))).toBeDefined();
  });
});
