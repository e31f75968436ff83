/**
 * The Launcher contract against every adapter: local chromedriver and hub as they run here; ecs over the
 * fake ECS API (test/support/fake-ecs-api.ts: a real ECSClient, RunTask refused as ECS refuses it, each
 * task a real chromedriver on a loopback IP of its own); eks over the fake Kubernetes API
 * (test/support/fake-kubernetes-api.ts: real pod calls, each pod's browser a real chromedriver).
 */

import { parseConfig } from '../../functions/core/config';
import { EcsLauncher } from '../../functions/pools/ecs/ecs-launcher';
import { EksLauncher } from '../../functions/pools/eks/eks-launcher';
import { HubLauncher } from '../../functions/pools/hub/hub-launcher';
import { ChromedriverLauncher } from '../../functions/pools/local/chromedriver-launcher';
import { FakeEcsApi } from '../support/fake-ecs-api';
import { FakeKubernetesApi } from '../support/fake-kubernetes-api';
import { CollectingLogger } from '../support/fakes';
import { LoopbackChromedrivers } from '../support/loopback-chromedrivers';
import { ecsPool, eksPool } from '../support/one-pool-config';
import { freePort } from '../support/processes';
import { launcherContract } from './launcher.contract';

const config = parseConfig(
  {
    browsers: { chrome: { versions: { '1': { pools: ['local', 'hub'] } } } },
    pools: { local: { kind: 'local' }, hub: { kind: 'hub', url: 'http://127.0.0.1:4444/wd/hub' } },
  },
  { localBrowserVersion: '1' },
);

launcherContract('ChromedriverLauncher', () => {
  const launcher = new ChromedriverLauncher();
  return {
    launcher,
    pool: config.pools.local as NonNullable<(typeof config.pools)['local']>,
    running: () => launcher.running().length,
    dispose: () => launcher.stopAll(),
  };
});

// A hub starts its browsers itself: nothing runs here, and a stop without the hub's session ID sends nothing.
launcherContract('HubLauncher', () => ({
  launcher: new HubLauncher(),
  pool: config.pools.hub as NonNullable<(typeof config.pools)['hub']>,
  running: () => 0,
}));

// Running: every task ECS has not yet seen stopped (StopTask answers once the task's container is gone).
launcherContract('EcsLauncher', async () => {
  const ecs = await FakeEcsApi.start({ containerPort: await freePort() });
  const logger = new CollectingLogger();
  return {
    launcher: new EcsLauncher({ ecs: ecs.client(), logger }),
    logger,
    pool: ecsPool(ecs.poolSettings()),
    running: () => [...ecs.tasks.values()].filter((task) => task.lastStatus !== 'STOPPED').length,
    // A task ID of ECS's form (32 hex digits) that no RunTask gave.
    unknownHandle: '0123456789abcdef0123456789abcdef',
    dispose: () => ecs.close(),
  };
});

// Running: every pod the API server holds (DELETE answers once the pod's browser has ended).
launcherContract('EksLauncher', async () => {
  const port = await freePort();
  const kube = await FakeKubernetesApi.start({
    token: 'k8s-aws-v1.contract',
    podIp: (n) => `127.0.2.${n + 1}`,
    containers: new LoopbackChromedrivers(port),
  });
  const api = kube.podApi();
  const logger = new CollectingLogger();
  return {
    launcher: new EksLauncher({ podApi: () => api, logger }),
    logger,
    pool: eksPool({
      cluster: 'browsers',
      endpoint: 'https://kubernetes.invalid',
      networks: ['127.0.0.0/8'],
      port,
    }),
    running: () => kube.pods.size,
    // A pod name of gridgate's form (gg-…) that no create made.
    unknownHandle: 'gg-0123456789abcdef-abc123',
    dispose: () => kube.close(),
  };
});
