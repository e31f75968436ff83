/**
 * An eks session's log end to end: the real app with an EksLauncher (keeping logs with the PodLogArchive) on
 * a fake Kubernetes API whose pods run a real chromedriver and Chromium, a pool with a recorder (so each pod
 * has two containers and the log must be asked for by container), the fake S3 as its bucket, and the npm
 * selenium-webdriver client. While the session runs its log is the pod's browser container output; after
 * quit, the copy kept in the bucket, by a presigned redirect the fake S3 checks.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../../../functions/adapters/memory/memory-session-store';
import { sessionPool } from '../../../../functions/core/grid-deps';
import { EksLauncher } from '../../../../functions/pools/eks/eks-launcher';
import { LOG_KEEP_MS } from '../../../../functions/pools/eks/eks-pod-logs';
import { eksRecordings } from '../../../../functions/pools/eks/eks-recordings';
import { PodLogArchive } from '../../../../functions/pools/eks/pod-log-archive';
import { chromeSession, headlessChromeOptions } from '../../../support/chrome-sessions';
import { FakeKubernetesApi } from '../../../support/fake-kubernetes-api';
import { FAKE_S3_CREDENTIALS, FAKE_S3_REGION, FakeS3 } from '../../../support/fake-s3';
import { CollectingLogger } from '../../../support/fakes';
import { LoopbackChromedrivers } from '../../../support/loopback-chromedrivers';
import { configWithOnePool } from '../../../support/one-pool-config';
import { freePort, processGroupAlive } from '../../../support/processes';
import { type ServedApp, serveApp } from '../../../support/served-app';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';

const TEST_MS = 60_000;
const TOKEN = 'k8s-aws-v1.e2e-logs';
const BUCKET = 'gridgate-recordingsbucket-e2e1';
const STARTED = /ChromeDriver was started successfully on port \d+/;
/** The log lookups' clock: real time, moved on past the shared lookup's life when the test says. */
let skippedMs = 0;
const clock = { now: () => Date.now() + skippedMs };

let kube: FakeKubernetesApi;
let s3: FakeS3;
let containers: LoopbackChromedrivers;
let site: TestPageServer;
let grid: ServedApp;
const logger = new CollectingLogger();

beforeAll(async () => {
  const port = await freePort();
  containers = new LoopbackChromedrivers(port);
  // 127.0.2.x: apart from the other fake pods' and tasks' loopback IPs, should the suites run at once.
  [kube, s3, site] = await Promise.all([
    FakeKubernetesApi.start({ token: TOKEN, podIp: (n) => `127.0.2.${n + 1}`, containers }),
    FakeS3.start([BUCKET]),
    startTestPageServer(),
  ]);
  const api = kube.podApi();
  const client = new S3Client({
    region: FAKE_S3_REGION,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: FAKE_S3_CREDENTIALS,
  });
  const archive = new PodLogArchive({ s3Client: async () => client, logger });
  grid = await serveApp({
    config: configWithOnePool(
      'pods',
      {
        kind: 'eks',
        cluster: 'browsers',
        endpoint: 'https://kubernetes.invalid',
        networks: ['127.0.0.0/8'],
        port,
        recorder: { image: 'selenium/video:ffmpeg-7.1', bucket: BUCKET, region: FAKE_S3_REGION },
      },
      { port: 0, host: '127.0.0.1' },
    ),
    runtimes: {
      eks: {
        launcher: new EksLauncher({ podApi: () => api, logger, keepLog: (toKeep) => archive.keep(toKeep) }),
      },
    },
    artifacts: {
      eks: eksRecordings((session) => sessionPool(grid.deps, session), {
        s3Client: async () => client,
        podApis: { aws: async () => () => api },
        clock,
      }),
    },
    sessions: new MemorySessionStore(),
    logger,
  });
}, TEST_MS);

afterAll(async () => {
  await grid?.close();
  await kube?.close();
  await Promise.allSettled([s3?.close(), site?.close()]);
  for (const container of containers?.containers.values() ?? [])
    expect(processGroupAlive(container.pid)).toBe(false);
});

describe('an eks session’s log (fake EKS pods running chromedriver)', { timeout: TEST_MS }, () => {
  it('is the pod’s browser output while the session runs, and the copy kept in the bucket after quit', async () => {
    const driver = await chromeSession(grid.url, headlessChromeOptions());
    const id = (await driver.getSession()).getId();
    try {
      await driver.get(`${site.url}/`);
      const live = await fetch(`${grid.url}/logs/${id}.log`);
      expect(live.status).toBe(200);
      expect(live.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await live.text()).toMatch(STARTED);
    } finally {
      await driver.quit();
    }
    expect(kube.pods.size).toBe(0);
    // The live lookup just made serves whoever asks within LOG_KEEP_MS; past it, the kept copy is found.
    skippedMs += LOG_KEEP_MS;
    const after = await fetch(`${grid.url}/logs/${id}.log`, { redirect: 'manual' });
    expect(after.status).toBe(302);
    const kept = await fetch(after.headers.get('location') ?? '');
    expect(kept.status).toBe(200);
    expect(await kept.text()).toMatch(STARTED);
    expect(logger.events()).not.toContain('BROWSER_LOG_NOT_KEPT');
  });
});
