/**
 * The creation stages EksLauncher reports for people watching a start (LaunchRequest.onStage), against a
 * fake Kubernetes API on 127.0.0.1 whose pods move through realistic phases, and a real /status endpoint.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EksLauncher } from '../../functions/adapters/aws/eks-launcher';
import { EksPodApi } from '../../functions/adapters/aws/eks-pod-api';
import { type EksPoolConfig, parseConfig } from '../../functions/core/config';
import type { LaunchStage } from '../../functions/core/ports';
import { FakeKubernetesApi } from '../support/fake-kubernetes-api';
import { FixedClock } from '../support/fakes';

const TOKEN = 'k8s-aws-v1.test-token';

let statusServer: Server;
let statusPort: number;
beforeAll(async () => {
  statusServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ value: { ready: true, message: 'node' } }));
  });
  await new Promise<void>((resolve) => statusServer.listen(0, '127.0.0.1', resolve));
  statusPort = (statusServer.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => statusServer.close(() => resolve())));

let kube: FakeKubernetesApi;
let launcher: EksLauncher;
beforeEach(async () => {
  kube = await FakeKubernetesApi.start({ token: TOKEN, podIp: () => '127.0.0.1' });
  const clock = new FixedClock();
  const api = new EksPodApi({ endpoint: kube.endpoint, token: async () => TOKEN });
  launcher = new EksLauncher({
    podApi: () => api,
    clock,
    random: () => 0.5,
    sleep: async (ms, signal) => {
      signal.throwIfAborted();
      clock.advance(ms);
    },
    podReadyTimeoutMs: 30_000,
    driverReadyTimeoutMs: 5_000,
  });
});
afterEach(() => kube.close());

function pool(): EksPoolConfig {
  const config = parseConfig(
    {
      browsers: { chrome: { versions: { '156': { pools: ['pods'] } } } },
      pools: {
        pods: {
          kind: 'eks',
          cluster: 'browsers',
          endpoint: 'https://api.browsers.example',
          port: statusPort,
          networks: ['127.0.0.0/8'],
        },
      },
    },
    { localBrowserVersion: '1' },
  );
  return config.pools.pods as EksPoolConfig;
}

async function stagesOf(start: (onStage: (stage: LaunchStage) => void) => Promise<unknown>) {
  const stages: LaunchStage[] = [];
  const outcome = await start((stage) => stages.push(stage)).then(
    () => 'started',
    () => 'failed',
  );
  return { outcome, stages };
}

const start = (onStage: (stage: LaunchStage) => void) =>
  launcher.start({
    pool: pool(),
    key: '0123456789abcdef',
    user: 'ann',
    idleTimeoutMs: 300_000,
    capabilities: { browserName: 'chrome' },
    signal: new AbortController().signal,
    onStage,
  });

describe('EksLauncher creation stages', () => {
  it('reports the launch once the pod is created, the pull while its container is being created, then the driver', async () => {
    const { outcome, stages } = await stagesOf(start);
    expect(outcome).toBe('started');
    // The launcher may repeat a stage while it polls; what people see is the order.
    expect([...new Set(stages)]).toEqual(['launch', 'pull', 'driver']);
  });

  it('stays at launch while no node takes the pod', async () => {
    kube.behaviours.push('unschedulable');
    const { outcome, stages } = await stagesOf(start);
    expect(outcome).toBe('failed');
    expect([...new Set(stages)]).toEqual(['launch']);
  });

  it('reports the pull of an image that never arrives', async () => {
    kube.behaviours.push('image pull');
    const { outcome, stages } = await stagesOf(start);
    expect(outcome).toBe('failed');
    expect([...new Set(stages)]).toEqual(['launch', 'pull']);
  });
});
