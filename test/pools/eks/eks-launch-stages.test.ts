/**
 * The creation stages EksLauncher reports for people watching a start (LaunchRequest.onStage), against a
 * fake Kubernetes API on 127.0.0.1 whose pods move through realistic phases, and a real /status endpoint.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EksPoolConfig } from '../../../functions/core/config';
import type { LaunchStage } from '../../../functions/core/ports';
import { EksLauncher } from '../../../functions/pools/eks/eks-launcher';
import { useBrowserNodeStatus } from '../../support/browser-node-status';
import { FakeKubernetesApi } from '../../support/fake-kubernetes-api';
import { FixedClock } from '../../support/fakes';
import { eksPool } from '../../support/one-pool-config';

const TOKEN = 'k8s-aws-v1.test-token';

const node = useBrowserNodeStatus();

let kube: FakeKubernetesApi;
let launcher: EksLauncher;
beforeEach(async () => {
  kube = await FakeKubernetesApi.start({ token: TOKEN, podIp: () => '127.0.0.1' });
  const clock = new FixedClock();
  const api = kube.podApi();
  launcher = new EksLauncher({
    podApi: () => api,
    clock,
    random: () => 0.5,
    sleep: clock.sleep,
    podReadyTimeoutMs: 30_000,
    driverReadyTimeoutMs: 5_000,
  });
});
afterEach(() => kube.close());

function pool(): EksPoolConfig {
  return eksPool({
    cluster: 'browsers',
    endpoint: 'https://api.browsers.example',
    port: node.port,
    networks: ['127.0.0.0/8'],
  });
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
    inUseMs: 3_660_000,
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
