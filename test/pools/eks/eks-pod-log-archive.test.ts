/**
 * An eks session's log kept when its pod is stopped: EksLauncher.stop with the PodLogArchive reads the pod's
 * browser container log from the fake Kubernetes API and puts it in the fake S3 with a real S3Client, then
 * deletes the pod; a log past the bound is cut and says so; a bucket that refuses, or a copy that outlasts
 * its bound, is logged and the pod is deleted all the same.
 */

import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { S3Client } from '@aws-sdk/client-s3';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EksPoolConfig } from '../../../functions/core/config';
import { EksLauncher } from '../../../functions/pools/eks/eks-launcher';
import { PodLogArchive, type PodLogArchiveOptions } from '../../../functions/pools/eks/pod-log-archive';
import { cutNote } from '../../../functions/pools/eks/pod-log-bound';
import { browserAndRecorderPod, FakeKubernetesApi } from '../../support/fake-kubernetes-api';
import { FAKE_S3_CREDENTIALS, FAKE_S3_REGION, FakeS3 } from '../../support/fake-s3';
import { CollectingLogger } from '../../support/fakes';
import { eksPool } from '../../support/one-pool-config';

const TOKEN = 'k8s-aws-v1.archive';
const BUCKET = 'gridgate-recordingsbucket-4d5e6f';
const NS = 'gridgate';
const KEY = '0123456789abcdef';
const POD = `gg-${KEY}-a1b2c3`;
const LOG = 'Started Selenium Standalone\nSession created\nSession deleted\n';

let kube: FakeKubernetesApi;
let s3: FakeS3;
let logger: CollectingLogger;

beforeEach(async () => {
  [kube, s3] = await Promise.all([FakeKubernetesApi.start({ token: TOKEN }), FakeS3.start([BUCKET])]);
  logger = new CollectingLogger();
  await kube.podApi().create(NS, browserAndRecorderPod(POD));
  kube.writeLog(NS, POD, 'browser', LOG);
  kube.writeLog(NS, POD, 'video', 'ffmpeg\n');
});
afterEach(async () => {
  await Promise.all([kube.close(), s3.close()]);
});

function pool(recorder: Record<string, unknown> | null = { bucket: BUCKET, region: FAKE_S3_REGION }) {
  return eksPool({
    cluster: 'browsers',
    namespace: NS,
    endpoint: 'https://kubernetes.invalid',
    networks: ['10.0.0.0/8'],
    ...(recorder ? { recorder: { image: 'selenium/video:ffmpeg-7.1', ...recorder } } : {}),
  });
}

function s3Client(endpoint = s3.endpoint): S3Client {
  return new S3Client({
    region: FAKE_S3_REGION,
    endpoint,
    forcePathStyle: true,
    credentials: FAKE_S3_CREDENTIALS,
  });
}

/** A launcher whose stop keeps logs with an archive of these options. */
function launcher(options: Partial<PodLogArchiveOptions> = {}): EksLauncher {
  const archive = new PodLogArchive({ s3Client: async () => s3Client(), logger, ...options });
  const api = kube.podApi();
  return new EksLauncher({ podApi: () => api, logger, keepLog: (toKeep) => archive.keep(toKeep) });
}

async function stop(target: EksLauncher, onPool: EksPoolConfig = pool()): Promise<void> {
  await target.stop(POD, { key: KEY, pool: onPool, reason: 'deleted', upstreamId: 'u' });
}

describe('an eks pod stopped at a session’s end', () => {
  it('has its browser log kept as logs/{key}.log in its pool’s bucket, then is deleted', async () => {
    await stop(launcher());
    const kept = s3.object(BUCKET, `logs/${KEY}.log`);
    expect(kept?.body.toString('utf8')).toBe(LOG);
    expect(kept?.contentType).toBe('text/plain; charset=utf-8');
    // Read first, deleted after: the log goes with the pod.
    expect(kube.calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      'POST /api/v1/namespaces/gridgate/pods',
      `GET /api/v1/namespaces/gridgate/pods/${POD}/log?container=browser&limitBytes=2097153`,
      `DELETE /api/v1/namespaces/gridgate/pods/${POD}`,
    ]);
    expect(kube.pods.size).toBe(0);
    expect(logger.events()).toEqual([]);
  });

  it('has a log longer than the bound cut there, with a line saying so', async () => {
    await stop(launcher({ maxBytes: 16 }));
    const kept = s3.object(BUCKET, `logs/${KEY}.log`)?.body.toString('utf8');
    expect(kept).toBe(`${LOG.slice(0, 16)}${cutNote(16)}`);
    expect(cutNote(16)).toBe('\n[gridgate: the log was longer; only its first 16 bytes are here]\n');
  });

  it('keeps it in the pool’s logBucket when it has no recorder (the stack sets one on every eks pool)', async () => {
    const plain = eksPool({
      cluster: 'browsers',
      namespace: NS,
      endpoint: 'https://kubernetes.invalid',
      networks: ['10.0.0.0/8'],
      logBucket: { bucket: BUCKET, region: FAKE_S3_REGION },
    });
    await stop(launcher(), plain);
    expect(s3.object(BUCKET, `logs/${KEY}.log`)?.body.toString('utf8')).toBe(LOG);
    expect(kube.pods.size).toBe(0);
  });

  it('keeps nothing for a pool without a bucket, and asks S3 nothing', async () => {
    await stop(launcher(), pool(null));
    expect(s3.calls).toEqual([]);
    expect(kube.callsOf('GET')).toEqual([]);
    expect(kube.pods.size).toBe(0);
  });

  it('is deleted when the bucket refuses the copy, which is logged', async () => {
    await stop(launcher(), pool({ bucket: 'gridgate-no-such-bucket', region: FAKE_S3_REGION }));
    expect(kube.pods.size).toBe(0);
    expect(logger.fieldsOf('BROWSER_LOG_NOT_KEPT')).toEqual([
      { pool: 'pods', handle: POD, session: KEY, error: expect.stringContaining('NoSuchBucket') },
    ]);
  });

  it('is deleted when the copy outlasts its bound, which is logged', async () => {
    // An S3 endpoint that takes the connection and never answers.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      await stop(launcher({ s3Client: async () => s3Client(endpoint), timeoutMs: 200 }));
      expect(kube.pods.size).toBe(0);
      expect(logger.fieldsOf('BROWSER_LOG_NOT_KEPT')).toEqual([
        { pool: 'pods', handle: POD, session: KEY, error: 'not kept within 200 ms' },
      ]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('keeps nothing of a pod already gone, and logs nothing', async () => {
    await kube.podApi().delete(NS, POD);
    await stop(launcher());
    expect(s3.calls).toEqual([]);
    expect(logger.events()).toEqual([]);
  });
});

describe('the fake S3’s PutObject, refusing what S3 refuses', () => {
  const signed = {
    authorization: `AWS4-HMAC-SHA256 Credential=${FAKE_S3_CREDENTIALS.accessKeyId}/20261202/${FAKE_S3_REGION}/s3/aws4_request, SignedHeaders=host, Signature=0`,
  };
  const put = async (path: string, init: Parameters<typeof request>[1]) => {
    const answer = await request(`${s3.endpoint}${path}`, { method: 'PUT', ...init });
    return { status: answer.statusCode, body: await answer.body.text() };
  };

  it('takes a signed PUT with its length and the CRC32 of its body', async () => {
    // zlib's CRC-32 of "hello", base64 as the SDK sends it.
    const answer = await put(`/${BUCKET}/logs/a.log`, {
      headers: { ...signed, 'content-type': 'text/plain', 'x-amz-checksum-crc32': 'NhCmhg==' },
      body: 'hello',
    });
    expect(answer.status).toBe(200);
    expect(s3.object(BUCKET, 'logs/a.log')?.body.toString()).toBe('hello');
  });

  it('refuses a body whose CRC32 is not the one sent (BadDigest)', async () => {
    const answer = await put(`/${BUCKET}/logs/a.log`, {
      headers: { ...signed, 'x-amz-checksum-crc32': 'AAAAAA==' },
      body: 'hello',
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('<Code>BadDigest</Code>');
  });

  it('refuses a body without a Content-Length (MissingContentLength)', async () => {
    const answer = await put(`/${BUCKET}/logs/a.log`, {
      headers: signed,
      body: Readable.from(['hel', 'lo']),
    });
    expect(answer.status).toBe(411);
    expect(answer.body).toContain('<Code>MissingContentLength</Code>');
  });

  it('refuses an unsigned PUT, and one to a bucket that does not exist', async () => {
    expect((await put(`/${BUCKET}/logs/a.log`, { body: 'hello' })).status).toBe(403);
    const missing = await put('/gridgate-no-such-bucket/logs/a.log', { headers: signed, body: 'hello' });
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('<Code>NoSuchBucket</Code>');
    expect(s3.object(BUCKET, 'logs/a.log')).toBeUndefined();
  });
});
