/**
 * EksLauncher against a fake Kubernetes API server on 127.0.0.1 (exact request bodies asserted, realistic
 * pod phases) and a real /status endpoint on 127.0.0.1 standing in for the pod's browser node; time is
 * fake, so no test waits on the clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EksPoolConfig } from '../../../functions/core/config';
import type { LaunchRequest } from '../../../functions/core/ports';
import { checkEksPool, EksLauncher, EksLaunchFailure } from '../../../functions/pools/eks/eks-launcher';
import { useBrowserNodeStatus } from '../../support/browser-node-status';
import { FakeKubernetesApi } from '../../support/fake-kubernetes-api';
import { CollectingLogger, FixedClock, RecordingMetrics } from '../../support/fakes';
import { eksPool } from '../../support/one-pool-config';

const TOKEN = 'k8s-aws-v1.test-token';
const KEY = '0123456789abcdef';

/** A browser node's /status on 127.0.0.1 whose readiness the test sets. */
const node = useBrowserNodeStatus();

let kube: FakeKubernetesApi;
let clock: FixedClock;
let logger: CollectingLogger;
let metrics: RecordingMetrics;
let launcher: EksLauncher;

beforeEach(async () => {
  node.ready = () => true;
  node.requests = 0;
  kube = await FakeKubernetesApi.start({ token: TOKEN, podIp: () => '127.0.0.1' });
  clock = new FixedClock();
  logger = new CollectingLogger();
  metrics = new RecordingMetrics();
  const api = kube.podApi();
  launcher = new EksLauncher({
    podApi: () => api,
    logger,
    metrics,
    clock,
    random: () => 0.5,
    // Fake time: each wait moves the clock, so deadlines pass without waiting.
    sleep: clock.sleep,
    podReadyTimeoutMs: 30_000,
    driverReadyTimeoutMs: 5_000,
  });
});
afterEach(() => kube.close());

function spotPool(overrides: Record<string, unknown> = {}): EksPoolConfig {
  return eksPool({
    cluster: 'browsers',
    endpoint: 'https://api.browsers.example',
    port: node.port,
    networks: ['127.0.0.0/8'],
    nodeSelector: { 'karpenter.sh/capacity-type': 'spot' },
    tolerations: [{ key: 'spot', operator: 'Exists', effect: 'NoSchedule' }],
    labels: { team: 'web' },
    ...overrides,
  });
}

function launch(
  pool = spotPool(),
  signal = new AbortController().signal,
  onStage?: LaunchRequest['onStage'],
): Promise<ReturnType<EksLauncher['start']>> {
  const request: LaunchRequest<EksPoolConfig> = {
    pool,
    key: KEY,
    user: 'ann@example.com',
    idleTimeoutMs: 300_000,
    inUseMs: 3_660_000,
    capabilities: { browserName: 'chrome', browserVersion: '156' },
    signal,
    onStage,
  };
  return launcher.start(request) as never;
}

async function failure(promise: Promise<unknown>): Promise<EksLaunchFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EksLaunchFailure);
  return error as EksLaunchFailure;
}

const POD_NAME = /^gg-0123456789abcdef-[0-9a-f]{6}$/;
const podPath = (name: string) => `/api/v1/namespaces/gridgate/pods/${name}`;

describe('EksLauncher.start', () => {
  it('creates exactly the pool template as a pod, waits until it runs and is ready, and returns its address', async () => {
    const browser = await launch();

    expect(browser.handle).toMatch(POD_NAME);
    expect(browser).toEqual({
      address: `127.0.0.1:${node.port}`,
      handle: browser.handle,
      capabilities: { browserName: 'chrome' },
    });
    const [create] = kube.callsOf('POST');
    expect(create).toEqual({
      path: '/api/v1/namespaces/gridgate/pods',
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: browser.handle,
          namespace: 'gridgate',
          labels: {
            team: 'web',
            gridgate: 'true',
            'gridgate/session': KEY,
            'gridgate/pool': 'pods',
            'gridgate/user': 'ann_example.com',
          },
          annotations: {
            'gridgate/created-at': String(Date.UTC(2025, 0, 1, 12)),
            'gridgate/user': 'ann@example.com',
            'karpenter.sh/do-not-disrupt': 'true',
          },
        },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 5,
          // New session 60 s + maximum age 1 h + the 5-minute grace: the pod ends itself past its use.
          activeDeadlineSeconds: 3960,
          nodeSelector: { 'karpenter.sh/capacity-type': 'spot' },
          tolerations: [{ key: 'spot', operator: 'Exists', effect: 'NoSchedule' }],
          containers: [
            {
              name: 'browser',
              image: 'selenium/standalone-chrome:latest',
              ports: [{ name: 'webdriver', containerPort: node.port, protocol: 'TCP' }],
              env: [
                { name: 'SE_NODE_SESSION_TIMEOUT', value: '300' },
                { name: 'SE_NODE_ENABLE_MANAGED_DOWNLOADS', value: 'true' },
              ],
              resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } },
              volumeMounts: [{ name: 'dshm', mountPath: '/dev/shm' }],
            },
          ],
          volumes: [{ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '2Gi' } }],
        },
      },
    });
    // Pending (scheduled, ContainerCreating), then Running and Ready: one create and two reads, nothing else.
    expect(kube.calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      'POST /api/v1/namespaces/gridgate/pods',
      `GET ${podPath(browser.handle)}`,
      `GET ${podPath(browser.handle)}`,
    ]);
    expect(kube.pods.size).toBe(1);
  });

  it('with a recorder, puts docker-selenium’s recorder beside the browser as in an ecs task, and finishes the video on delete', async () => {
    const recorder = {
      image: 'selenium/video:ffmpeg-7.1-20250606',
      bucket: 'gridgate-recordings-1a2b',
      region: 'eu-west-1',
    };
    const browser = await launcher.start({
      pool: spotPool({ recorder }),
      key: KEY,
      user: 'ann@example.com',
      idleTimeoutMs: 300_000,
      inUseMs: 3_660_000,
      capabilities: { browserName: 'chrome', browserVersion: '156' },
      recording: { video: true, log: false },
      signal: new AbortController().signal,
    });
    // The node is told to record, under the session's key: the name the router looks the video up by.
    expect(browser.capabilities).toEqual({
      browserName: 'chrome',
      'se:recordVideo': true,
      'se:videoName': KEY,
    });
    const spec = kube.callsOf('POST')[0]?.body.spec;
    expect(spec).toMatchObject({
      // The service account the stack's EKS Pod Identity association names; still no Kubernetes API token.
      serviceAccountName: 'gridgate-recorder',
      automountServiceAccountToken: false,
      // docker-selenium's recorder gets 30 s to finish recording and 30 s to upload.
      terminationGracePeriodSeconds: 60,
    });
    const [browserContainer, video] = spec.containers;
    // The display outlives the recorder's own stop: the browser's preStop holds it.
    expect(browserContainer.lifecycle).toEqual({ preStop: { exec: { command: ['sleep', '5'] } } });
    expect(video).toEqual({
      name: 'video',
      image: 'selenium/video:ffmpeg-7.1-20250606',
      env: [
        { name: 'SE_VIDEO_RECORD_STANDALONE', value: 'true' },
        { name: 'DISPLAY_CONTAINER_NAME', value: 'localhost' },
        { name: 'SE_NODE_PORT', value: String(node.port) },
        { name: 'SE_VIDEO_FILE_NAME', value: 'auto' },
        { name: 'SE_VIDEO_FILE_NAME_SUFFIX', value: 'false' },
        { name: 'SE_VIDEO_UPLOAD_ENABLED', value: 'true' },
        { name: 'SE_UPLOAD_DESTINATION_PREFIX', value: 's3://gridgate-recordings-1a2b/videos' },
        { name: 'RCLONE_CONFIG_S3_TYPE', value: 's3' },
        { name: 'RCLONE_CONFIG_S3_PROVIDER', value: 'AWS' },
        { name: 'RCLONE_CONFIG_S3_ENV_AUTH', value: 'true' },
        { name: 'RCLONE_CONFIG_S3_REGION', value: 'eu-west-1' },
        { name: 'RCLONE_CONFIG_S3_NO_CHECK_BUCKET', value: 'true' },
        { name: 'RCLONE_CONFIG_S3_NO_HEAD', value: 'true' },
        { name: 'RCLONE_CONFIG_S3_ACL', value: 'bucket-owner-full-control' },
        { name: 'SE_UPLOAD_OPTS', value: '--cutoff-mode SOFT --inplace --no-check-dest' },
      ],
      resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } },
    });
    // No credentials in the pod: EKS Pod Identity's agent gives the recorder its role's.
    expect(video.env.filter(({ name }: { name: string }) => /KEY|SECRET|TOKEN/.test(name))).toEqual([]);
  });

  it("starts the browser and its recorder with the session's time zone and screen, the window at that size", async () => {
    const browser = await launcher.start({
      pool: spotPool({
        recorder: {
          image: 'selenium/video:ffmpeg-7.1-20250606',
          bucket: 'gridgate-recordings-1a2b',
          region: 'eu-west-1',
        },
      }),
      key: KEY,
      user: 'ann@example.com',
      idleTimeoutMs: 300_000,
      inUseMs: 3_660_000,
      capabilities: { browserName: 'chrome', 'se:timeZone': 'Asia/Tokyo', 'se:screenResolution': '1366x768' },
      signal: new AbortController().signal,
    });
    expect(browser.capabilities['goog:chromeOptions']).toEqual({
      args: ['--window-size=1366,768', '--screen-info={1366x768}'],
    });
    // The fake API server validated the pod as Kubernetes does (env names included) before taking it.
    const [browserContainer, video] = kube.callsOf('POST')[0]?.body.spec.containers ?? [];
    const session = [
      { name: 'TZ', value: 'Asia/Tokyo' },
      { name: 'SE_SCREEN_WIDTH', value: '1366' },
      { name: 'SE_SCREEN_HEIGHT', value: '768' },
    ];
    expect(browserContainer.env).toEqual([
      { name: 'SE_NODE_SESSION_TIMEOUT', value: '300' },
      { name: 'SE_NODE_ENABLE_MANAGED_DOWNLOADS', value: 'true' },
      ...session,
    ]);
    expect(video.env.slice(-3)).toEqual(session);
  });

  it("ends a session's pod itself a grace after the session's own shorter maximum age", async () => {
    const request: LaunchRequest<EksPoolConfig> = {
      pool: spotPool(),
      key: KEY,
      user: 'ann@example.com',
      idleTimeoutMs: 300_000,
      // A session that asked for at most 10 minutes, after a 60 s new-session timeout.
      inUseMs: 660_000,
      capabilities: { browserName: 'chrome' },
      signal: new AbortController().signal,
    };
    await launcher.start(request);
    expect(kube.callsOf('POST')[0]?.body.spec.activeDeadlineSeconds).toBe(960);
  });

  it('leaves the pod of a pool without a recorder as it was: no service account, no hook, 5 s to stop', async () => {
    const browser = await launch();
    const spec = kube.callsOf('POST')[0]?.body.spec;
    expect(spec.serviceAccountName).toBeUndefined();
    expect(spec.terminationGracePeriodSeconds).toBe(5);
    expect(spec.containers.map((container: { name: string }) => container.name)).toEqual(['browser']);
    expect(spec.containers[0].lifecycle).toBeUndefined();
    expect(browser.capabilities).toEqual({ browserName: 'chrome' });
  });

  it('refuses a recorder pool whose upload bucket is not set, without calling the API', async () => {
    const error = await failure(launch(spotPool({ recorder: { region: 'eu-west-1' } })));
    expect(error.stage).toBe('config');
    expect(error.message).toContain('pools.pods.recorder.bucket: not set');
    expect(kube.calls).toEqual([]);
  });

  it('carries the billing of a pod on an EKS Fargate profile, sized as Fargate sizes it, and none on nodes', async () => {
    const onFargate = await launch(spotPool({ fargate: true, cpu: '1', memory: '2Gi' }));
    // 2 GiB + Fargate's 256 MB for Kubernetes' components does not fit 1 vCPU / 2 GB: billed as 1 vCPU / 3 GB.
    expect(onFargate.billing).toEqual({
      billedFrom: Date.UTC(2025, 0, 1, 12),
      capacity: 'on-demand',
      architecture: 'x86_64',
      vcpu: 1,
      memoryGb: 3,
    });
    expect((await launch()).billing).toBeUndefined();
  });

  it('keeps its API reads per session bounded by the deadline, however long the pod stays Pending', async () => {
    kube.behaviours.push('unschedulable');
    await failure(launch());
    // 30 s at 0.5 s growing to 3 s (×0.75 with this jitter): a fixed number, independent of other sessions.
    expect(kube.callsOf('GET').length).toBeLessThanOrEqual(20);
  });

  it('deletes a pod stuck Pending as Unschedulable and says so', async () => {
    kube.behaviours.push('unschedulable');
    const error = await failure(launch());
    expect(error.stage).toBe('unschedulable');
    expect(error.outcome).toBe('unreachable');
    expect(error.message).toMatch(
      /^unschedulable: pod gg-\S+ was not ready within 30 s: 0\/3 nodes are available: 3 Insufficient cpu/,
    );
    expect(kube.callsOf('DELETE')).toHaveLength(1);
    expect(kube.pods.size).toBe(0);
  });

  it('deletes a pod whose image does not pull as soon as the pull fails', async () => {
    kube.behaviours.push('image pull');
    const error = await failure(launch());
    expect(error.stage).toBe('pull');
    expect(error.message).toContain('ErrImagePull: rpc error: code = NotFound');
    // ContainerCreating, then ErrImagePull: no waiting through the back-off.
    expect(kube.callsOf('GET')).toHaveLength(2);
    expect(kube.pods.size).toBe(0);
  });

  it('deletes a pod that runs but never becomes Ready, naming the stage', async () => {
    kube.behaviours.push('never ready');
    const error = await failure(launch());
    expect(error.stage).toBe('not ready');
    expect(error.message).toMatch(/was not ready within 30 s: phase Running/);
    expect(kube.pods.size).toBe(0);
  });

  it('deletes a Ready pod whose WebDriver endpoint never answers ready', async () => {
    node.ready = () => false;
    const error = await failure(launch());
    expect(error.stage).toBe('driver');
    expect(error.message).toMatch(/^driver: http:\/\/127\.0\.0\.1:\d+\/status was not ready within 5 s/);
    expect(kube.pods.size).toBe(0);
  });

  it('retries a throttled create', async () => {
    kube.throttleNext = 1;
    const browser = await launch();
    expect(kube.callsOf('POST')).toHaveLength(2);
    expect(browser.handle).toMatch(POD_NAME);
  });

  it('fails at the create stage when the API refuses the pod, and still deletes by name', async () => {
    kube.failNextCreate = {
      status: 403,
      reason: 'Forbidden',
      message: 'pods is forbidden: User "gridgate" cannot create',
    };
    const error = await failure(launch());
    expect(error.stage).toBe('create');
    expect(error.message).toContain('Kubernetes API 403 Forbidden: pods is forbidden');
    // A create that timed out may have made the pod; the delete by name costs one 404 when it did not.
    expect(kube.callsOf('DELETE')).toHaveLength(1);
    expect(logger.events()).toEqual([]);
  });

  it('deletes the pod and rejects with the reason when the client goes away while it starts', async () => {
    const abort = new AbortController();
    kube.behaviours.push('unschedulable');
    // The client goes away once the pod is made and read back, still starting.
    const started = launch(spotPool(), abort.signal, () => abort.abort(new Error('client gone')));
    await expect(started).rejects.toThrow('client gone');
    expect(kube.pods.size).toBe(0);
  });

  it('refuses a pool the deployment has not completed, without calling the API', async () => {
    const error = await failure(launch(spotPool({ endpoint: undefined, networks: undefined })));
    expect(error.stage).toBe('config');
    expect(error.outcome).toBe('refused');
    expect(checkEksPool(spotPool({ networks: undefined }))).toEqual([
      "pools.pods.networks: not set (the CIDR blocks of the pods' IPs; with the VPC CNI, the cluster VPC's)",
    ]);
    expect(kube.calls).toEqual([]);
  });

  it('deletes a pod whose IP lies outside the pool networks rather than putting it in a session ID', async () => {
    const error = await failure(launch(spotPool({ networks: ['10.1.0.0/16'] })));
    expect(error.stage).toBe('not ready');
    expect(error.message).toBe(
      `not ready: the pod's address 127.0.0.1:${node.port} is outside pools.pods.networks`,
    );
    expect(node.requests).toBe(0);
    expect(kube.pods.size).toBe(0);
  });

  it('times the launch until the pod is Ready and the driver until its /status says ready', async () => {
    let answers = 0;
    node.ready = () => ++answers > 3;
    await launch();
    const [launchStage, driverStage] = metrics.timings;
    expect(metrics.timings.map((t) => [t.name, t.dimensions])).toEqual([
      ['LaunchStageLatency', { pool: 'pods', stage: 'launch' }],
      ['LaunchStageLatency', { pool: 'pods', stage: 'driver' }],
      // The whole start, for the dashboard's cold-vs-warm graph: every pod is a cold start.
      ['BrowserStartLatency', { pool: 'pods', start: 'cold' }],
    ]);
    expect(metrics.timings[2]?.ms).toBe((launchStage?.ms ?? 0) + (driverStage?.ms ?? 0));
    // Fake time moves only by the launcher's waits: pod reads until Ready, then three /status polls.
    expect(launchStage?.ms).toBeGreaterThan(0);
    expect(driverStage?.ms).toBe(1500);
  });
});

describe('EksLauncher.stop', () => {
  it('deletes the pod by name, and a second stop of the gone pod is fine', async () => {
    const pool = spotPool();
    const browser = await launch(pool);
    await launcher.stop(browser.handle, { key: 'k', pool, reason: 'deleted', upstreamId: 'abc' });
    await launcher.stop(browser.handle, { key: 'k', pool, reason: 'deleted', upstreamId: 'abc' });
    expect(kube.callsOf('DELETE').map((call) => call.path)).toEqual([
      podPath(browser.handle),
      podPath(browser.handle),
    ]);
    expect(kube.pods.size).toBe(0);
    expect(logger.events()).toEqual([]);
  });

  it('logs instead of throwing when the API keeps failing, leaving the pod to the cleanup', async () => {
    const pool = spotPool();
    const browser = await launch(pool);
    kube.throttleNext = 10;
    await launcher.stop(browser.handle, { key: 'k', pool, reason: 'idle timeout', upstreamId: 'abc' });
    expect(logger.fieldsOf('BROWSER_STOP_FAILED')).toEqual([
      { pool: 'pods', handle: browser.handle, reason: expect.stringContaining('429 TooManyRequests') },
    ]);
  });

  it('deletes nothing for a handle that is not a pod name of this grid', async () => {
    await launcher.stop('kube-system/coredns', {
      key: 'k',
      pool: spotPool(),
      reason: 'deleted',
      upstreamId: 'abc',
    });
    expect(kube.calls).toEqual([]);
    expect(logger.events()).toEqual(['BROWSER_STOP_FAILED']);
  });
});

describe('KubernetesPodApi', () => {
  it('lists pods by label selector across pages', async () => {
    const api = kube.podApi({ listPage: 2 });
    const pool = spotPool();
    const handles = [];
    for (let i = 0; i < 3; i++) handles.push((await launch(pool)).handle);
    const pods = await api.list('gridgate', 'gridgate=true,gridgate/pool=pods');
    expect(pods.map((pod) => pod.metadata.name).sort()).toEqual(handles.sort());
    expect(kube.callsOf('GET').filter((call) => call.path.includes('labelSelector'))).toEqual([
      {
        path: '/api/v1/namespaces/gridgate/pods?labelSelector=gridgate%3Dtrue%2Cgridgate%2Fpool%3Dpods&limit=2',
      },
      {
        path: '/api/v1/namespaces/gridgate/pods?labelSelector=gridgate%3Dtrue%2Cgridgate%2Fpool%3Dpods&limit=2&continue=2',
      },
    ]);
    expect(await api.list('gridgate', 'gridgate=true,gridgate/pool=other')).toEqual([]);
  });

  it('sends the bearer token: a wrong one is refused by the server', async () => {
    const api = kube.podApi({ token: async () => 'wrong' });
    await expect(api.read('gridgate', 'gg-x')).rejects.toThrow('Kubernetes API 401 Unauthorized');
  });

  it('is answered as the API server answers pods it refuses: 400 when undecodable, 422 when invalid', async () => {
    const api = kube.podApi();
    const container = { name: 'browser', image: 'selenium/standalone-chrome:latest' };
    const pod = (spec: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'gg-refused' },
      spec: { containers: [container], ...spec },
    });
    await expect(api.create('gridgate', pod({ terminationGracePeriodSeconds: '60' }))).rejects.toMatchObject({
      status: 400,
      reason: 'BadRequest',
    });
    await expect(api.create('gridgate', pod({ containers: [container, container] }))).rejects.toMatchObject({
      status: 422,
      reason: 'Invalid',
      message: expect.stringContaining('spec.containers[1].name: Duplicate value: "browser"'),
    });
    expect(kube.pods.size).toBe(0);
  });
});
