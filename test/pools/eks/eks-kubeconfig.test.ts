/**
 * eks pools with `auth: "kubeconfig"`: kubeconfig files written to a temp dir, loaded by
 * @kubernetes/client-node, against the fake Kubernetes API on 127.0.0.1 — a static token, an exec plugin
 * (a real child process printing an ExecCredential, as `aws eks get-token` does), context selection, and
 * over https a client certificate checked against the cluster's CA.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EksPoolConfig } from '../../../functions/core/config';
import type { Launcher, LaunchRequest } from '../../../functions/core/ports';
import { eksLauncherByAuth } from '../../../functions/pools/eks/eks-auth-launcher';
import { kubeconfigPodApis, loadKubeconfig } from '../../../functions/pools/eks/eks-kubeconfig';
import { EksLauncher, EksLaunchFailure } from '../../../functions/pools/eks/eks-launcher';
import { KubernetesApiError } from '../../../functions/pools/eks/eks-pod-api';
import { useBrowserNodeStatus } from '../../support/browser-node-status';
import { FakeKubernetesApi } from '../../support/fake-kubernetes-api';
import { CollectingLogger } from '../../support/fakes';
import { eksPool } from '../../support/one-pool-config';
import { makeTestPki } from '../../support/test-pki';

const TOKEN = 'kubeconfig-token';

let dir: string;
let kube: FakeKubernetesApi;
/** A browser node's /status on 127.0.0.1, always ready: the pods' WebDriver endpoint. */
const node = useBrowserNodeStatus();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gridgate-kubeconfig-'));
  kube = await FakeKubernetesApi.start({ token: TOKEN, podIp: () => '127.0.0.1' });
});
afterAll(async () => {
  await kube.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  kube.calls.length = 0;
});

/** A kubeconfig (JSON is YAML) with one context per user, the first current unless told otherwise. */
function kubeconfig(
  name: string,
  users: Record<string, unknown>,
  current = Object.keys(users)[0],
  // The plain-http fake is allowed by the client only with TLS verification off.
  cluster: Record<string, unknown> = { server: kube.endpoint, 'insecure-skip-tls-verify': true },
): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fake', cluster }],
      users: Object.entries(users).map(([user, spec]) => ({ name: user, user: spec })),
      contexts: Object.keys(users).map((user) => ({ name: user, context: { cluster: 'fake', user } })),
      'current-context': current,
    }),
  );
  return path;
}

function kubeconfigPool(settings: Record<string, unknown>): EksPoolConfig {
  return eksPool({
    cluster: 'browsers',
    auth: 'kubeconfig',
    networks: ['127.0.0.0/8'],
    port: node.port,
    ...settings,
  });
}

describe('kubeconfig pod APIs', () => {
  it("calls the context's server with the user's token", async () => {
    const api = kubeconfigPodApis()(
      kubeconfigPool({ kubeconfig: kubeconfig('token.yaml', { right: { token: TOKEN } }) }),
    );
    expect(await api.list('gridgate', 'gridgate=true')).toEqual([]);
    expect(kube.calls).toEqual([
      { method: 'GET', path: '/api/v1/namespaces/gridgate/pods?labelSelector=gridgate%3Dtrue&limit=500' },
    ]);
  });

  it('uses the context the pool names, not the current one', async () => {
    const path = kubeconfig('contexts.yaml', { wrong: { token: 'stale' }, right: { token: TOKEN } }, 'wrong');
    const current = kubeconfigPodApis()(kubeconfigPool({ kubeconfig: path }));
    await expect(current.list('gridgate', 'gridgate=true')).rejects.toMatchObject({ status: 401 });
    const named = kubeconfigPodApis()(kubeconfigPool({ kubeconfig: path, context: 'right' }));
    expect(await named.list('gridgate', 'gridgate=true')).toEqual([]);
  });

  it('runs an exec plugin for the token and reuses its credential until it expires', async () => {
    const runs = join(dir, 'exec-runs.txt');
    writeFileSync(runs, '');
    // What `aws eks get-token` prints: an ExecCredential with a token and its expiry.
    const plugin = `require('node:fs').appendFileSync(${JSON.stringify(runs)}, 'run\\n');
      console.log(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential',
        status: { token: ${JSON.stringify(TOKEN)}, expirationTimestamp: new Date(Date.now() + 600000).toISOString() } }));`;
    const path = kubeconfig('exec.yaml', {
      right: {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          command: process.execPath,
          args: ['-e', plugin],
          interactiveMode: 'Never',
        },
      },
    });
    const api = kubeconfigPodApis()(kubeconfigPool({ kubeconfig: path }));
    expect(await api.read('gridgate', 'gg-none')).toBeUndefined();
    expect(await api.read('gridgate', 'gg-none')).toBeUndefined();
    expect(readFileSync(runs, 'utf8')).toBe('run\n');
  });

  it('refuses a token the server does not know, as a Kubernetes 401', async () => {
    const api = kubeconfigPodApis()(
      kubeconfigPool({ kubeconfig: kubeconfig('stale.yaml', { right: { token: 'x' } }) }),
    );
    const failure = api.read('gridgate', 'gg-none');
    await expect(failure).rejects.toBeInstanceOf(KubernetesApiError);
    await expect(failure).rejects.toMatchObject({ status: 401, reason: 'Unauthorized' });
  });

  it('fails at the config stage for a missing file or an unknown context, naming the pool key', () => {
    const missing = () => loadKubeconfig({ name: 'pods', kubeconfig: join(dir, 'none.yaml') });
    expect(missing).toThrow(EksLaunchFailure);
    expect(missing).toThrow(/^config: pools\.pods: reading .*none\.yaml failed/);
    const path = kubeconfig('one.yaml', { right: { token: TOKEN } });
    expect(() => loadKubeconfig({ name: 'pods', kubeconfig: path, context: 'prod' })).toThrow(
      `config: pools.pods.context: ${path} has no context "prod"`,
    );
  });
});

describe('the eks launcher with a kubeconfig pool', () => {
  it('creates the pod through the kubeconfig context and deletes it when the session ends', async () => {
    const pool = kubeconfigPool({
      kubeconfig: kubeconfig('launch.yaml', { right: { token: TOKEN } }),
      namespace: 'ci',
    });
    const launcher = new EksLauncher({
      podApi: kubeconfigPodApis(),
      logger: new CollectingLogger(),
      sleep: async () => {},
    });
    const browser = await launcher.start(launchRequest(pool));
    expect(browser.address).toBe(`127.0.0.1:${pool.port}`);
    expect(kube.callsOf('POST')).toEqual([
      {
        path: '/api/v1/namespaces/ci/pods',
        body: expect.objectContaining({
          kind: 'Pod',
          metadata: expect.objectContaining({ name: browser.handle }),
        }),
      },
    ]);
    await launcher.stop(browser.handle, { key: 'k', pool, reason: 'deleted', upstreamId: 'u' });
    expect(kube.callsOf('DELETE')).toEqual([{ path: `/api/v1/namespaces/ci/pods/${browser.handle}` }]);
    expect(kube.pods.size).toBe(0);
  });

  it('sends kubeconfig pools to the kubeconfig launcher and the others to the AWS one, for start and stop', async () => {
    const used: string[] = [];
    const fake = (name: string): Launcher => ({
      start: async () => {
        used.push(`${name} start`);
        return { address: '127.0.0.1:1', handle: 'gg-x', capabilities: {} };
      },
      stop: async () => {
        used.push(`${name} stop`);
      },
    });
    const launcher = eksLauncherByAuth({ aws: fake('aws'), kubeconfig: fake('kubeconfig') });
    const viaKubeconfig = kubeconfigPool({ kubeconfig: '/nowhere' });
    const viaAws = kubeconfigPool({ auth: 'aws', endpoint: 'https://k8s.example.com' });
    await launcher.start(launchRequest(viaKubeconfig));
    await launcher.start(launchRequest(viaAws));
    await launcher.stop('gg-x', { key: 'k', pool: viaKubeconfig, reason: 'deleted', upstreamId: 'u' });
    await launcher.stop('gg-x', { key: 'k', pool: viaAws, reason: 'deleted', upstreamId: 'u' });
    expect(used).toEqual(['kubeconfig start', 'aws start', 'kubeconfig stop', 'aws stop']);
  });
});

function launchRequest(pool: EksPoolConfig): LaunchRequest<EksPoolConfig> {
  return {
    pool,
    key: '0123456789abcdef',
    user: 'alice',
    idleTimeoutMs: 60_000,
    inUseMs: 3_660_000,
    capabilities: { browserName: 'chrome' },
    signal: new AbortController().signal,
  };
}

describe('kubeconfig pod APIs over https', () => {
  let secure: FakeKubernetesApi;
  let pkiDir: string;
  let pki: ReturnType<typeof makeTestPki>;
  const base64 = (pem: string) => Buffer.from(pem).toString('base64');

  beforeAll(async () => {
    pkiDir = mkdtempSync(join(tmpdir(), 'gridgate-pki-'));
    pki = makeTestPki(pkiDir);
    secure = await FakeKubernetesApi.start({
      token: TOKEN,
      tls: { cert: pki.serverCert, key: pki.serverKey, clientCa: pki.ca },
    });
  });
  afterAll(async () => {
    await secure.close();
    rmSync(pkiDir, { recursive: true, force: true });
  });

  it("authenticates with the user's client certificate, trusting the cluster's CA", async () => {
    const path = kubeconfig(
      'cert-data.yaml',
      {
        right: {
          'client-certificate-data': base64(pki.clientCert),
          'client-key-data': base64(pki.clientKey),
        },
      },
      'right',
      { server: secure.endpoint, 'certificate-authority-data': base64(pki.ca) },
    );
    const api = kubeconfigPodApis()(kubeconfigPool({ kubeconfig: path }));
    expect(await api.list('gridgate', 'gridgate=true')).toEqual([]);
    expect(secure.calls.at(-1)?.method).toBe('GET');
  });

  it('reads certificate files named relative to the kubeconfig', async () => {
    const path = join(pkiDir, 'files.yaml');
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'fake', cluster: { server: secure.endpoint, 'certificate-authority': 'ca.crt' } }],
        users: [{ name: 'me', user: { 'client-certificate': 'client.crt', 'client-key': 'client.key' } }],
        contexts: [{ name: 'me', context: { cluster: 'fake', user: 'me' } }],
        'current-context': 'me',
      }),
    );
    const api = kubeconfigPodApis()(kubeconfigPool({ kubeconfig: path }));
    expect(await api.read('gridgate', 'gg-none')).toBeUndefined();
  });

  it('is refused without a credential, and cannot connect to a server its CA did not sign', async () => {
    const bare = kubeconfig('no-cert.yaml', { right: {} }, 'right', {
      server: secure.endpoint,
      'certificate-authority-data': base64(pki.ca),
    });
    await expect(
      kubeconfigPodApis()(kubeconfigPool({ kubeconfig: bare })).read('gridgate', 'gg-none'),
    ).rejects.toMatchObject({
      status: 401,
    });
    const other = makeTestPki(mkdtempSync(join(pkiDir, 'other-')));
    const untrusted = kubeconfig('other-ca.yaml', { right: { token: TOKEN } }, 'right', {
      server: secure.endpoint,
      'certificate-authority-data': base64(other.ca),
    });
    const failure = kubeconfigPodApis()(kubeconfigPool({ kubeconfig: untrusted })).read(
      'gridgate',
      'gg-none',
    );
    await expect(failure).rejects.toThrow();
    await expect(failure).rejects.not.toBeInstanceOf(KubernetesApiError);
  });
});
