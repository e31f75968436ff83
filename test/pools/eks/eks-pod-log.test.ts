/**
 * A pod's browser log over the Kubernetes API: KubernetesPodApi.log against the fake API server on 127.0.0.1
 * (`GET …/pods/{name}/log`, exact query asserted), and the fake's refusals, each the API server's own
 * (test/support/kubernetes-api-rules.ts): a pod with a recorder beside the browser needs its container named.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubernetesApiError, KubernetesPodApi } from '../../../functions/pools/eks/eks-pod-api';
import { browserAndRecorderPod, FakeKubernetesApi } from '../../support/fake-kubernetes-api';

const TOKEN = 'k8s-aws-v1.log-test';
const NS = 'gridgate';
const POD = 'gg-0123456789abcdef-a1b2c3';

let kube: FakeKubernetesApi;

beforeEach(async () => {
  kube = await FakeKubernetesApi.start({ token: TOKEN });
  // A browser and the recorder beside it, as a pool with a recorder starts them.
  await kube.podApi().create(NS, browserAndRecorderPod(POD));
  kube.writeLog(NS, POD, 'browser', 'Started Selenium Standalone\nSession created\n');
  kube.writeLog(NS, POD, 'video', 'ffmpeg: recording\n');
});
afterEach(() => kube.close());

/** A raw GET of the pod's log with this query, as a client that names no container (or another) sends it. */
async function rawLog(query: string): Promise<{ status: number; body: string }> {
  const response = await request(`${kube.endpoint}/api/v1/namespaces/${NS}/pods/${POD}/log?${query}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return { status: response.statusCode, body: await response.body.text() };
}

describe('KubernetesPodApi.log', () => {
  it('reads the browser container’s log by name, not the recorder’s, and not followed', async () => {
    const text = await kube.podApi().log(NS, POD, { container: 'browser', limitBytes: 1024 });
    expect(text?.toString('utf8')).toBe('Started Selenium Standalone\nSession created\n');
    expect(kube.callsOf('GET').map((call) => call.path)).toEqual([
      `/api/v1/namespaces/${NS}/pods/${POD}/log?container=browser&limitBytes=1024`,
    ]);
  });

  it('reads no more than limitBytes of it', async () => {
    const text = await kube.podApi().log(NS, POD, { container: 'browser', limitBytes: 7 });
    expect(text?.toString('utf8')).toBe('Started');
  });

  it('cuts an answer longer than limitBytes itself (the server "may return slightly more")', async () => {
    const server = createServer((_req, res) => res.end('x'.repeat(100_000)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const api = new KubernetesPodApi({
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        token: async () => TOKEN,
      });
      const text = await api.log(NS, POD, { container: 'browser', limitBytes: 10 });
      expect(text?.length).toBe(10);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('has none of a pod that is gone', async () => {
    await kube.podApi().delete(NS, POD);
    expect(await kube.podApi().log(NS, POD, { container: 'browser', limitBytes: 1024 })).toBeUndefined();
  });

  it('throws the API server’s refusal with its status and reason', async () => {
    const refused = kube.podApi().log(NS, POD, { container: 'chrome', limitBytes: 1024 });
    await expect(refused).rejects.toBeInstanceOf(KubernetesApiError);
    await expect(refused).rejects.toMatchObject({ status: 400, reason: 'BadRequest' });
  });
});

describe('the fake API server’s pods/log, refusing what the API server refuses', () => {
  it('refuses a pod of several containers when none is named, listing them', async () => {
    const { status, body } = await rawLog('limitBytes=100');
    expect(status).toBe(400);
    expect(JSON.parse(body)).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message: `a container name must be specified for pod ${POD}, choose one of: [browser video]`,
    });
  });

  it('refuses a container the pod does not have', async () => {
    const { status, body } = await rawLog('container=chrome');
    expect(status).toBe(400);
    expect(JSON.parse(body).message).toBe(`container chrome is not valid for pod ${POD}`);
  });

  it('refuses limitBytes below 1 as invalid, and one that is not a number as undecodable', async () => {
    const zero = await rawLog('container=browser&limitBytes=0');
    expect(zero.status).toBe(422);
    expect(JSON.parse(zero.body)).toMatchObject({
      reason: 'Invalid',
      message: `PodLogOptions "${POD}" is invalid: limitBytes: Invalid value: 0: must be greater than 0`,
    });
    expect((await rawLog('container=browser&limitBytes=many')).status).toBe(400);
  });

  it('answers the named container’s text, the last tailLines of it when asked', async () => {
    expect(await rawLog('container=video')).toEqual({ status: 200, body: 'ffmpeg: recording\n' });
    expect(await rawLog('container=browser&tailLines=1')).toEqual({ status: 200, body: 'Session created\n' });
  });

  it('refuses the log of a container still waiting to start', async () => {
    // The fake's first read of a pod shows its containers waiting in ContainerCreating.
    await kube.podApi().read(NS, POD);
    const { status, body } = await rawLog('container=browser');
    expect(status).toBe(400);
    expect(JSON.parse(body).message).toBe(
      `container "browser" in pod "${POD}" is waiting to start: ContainerCreating`,
    );
  });

  it('answers a missing pod 404 NotFound', async () => {
    await kube.podApi().delete(NS, POD);
    const { status, body } = await rawLog('container=browser');
    expect(status).toBe(404);
    expect(JSON.parse(body)).toMatchObject({ reason: 'NotFound', message: `pods "${POD}" not found` });
  });
});
