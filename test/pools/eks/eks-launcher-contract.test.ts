/**
 * The Launcher contract against the eks launcher over the fake Kubernetes API
 * (test/support/fake-kubernetes-api.ts: real pod calls, each pod's browser a real chromedriver).
 */
import { EksLauncher } from '../../../functions/pools/eks/eks-launcher';
import { launcherContract } from '../../contract/launcher.contract';
import { FakeKubernetesApi } from '../../support/fake-kubernetes-api';
import { CollectingLogger } from '../../support/fakes';
import { LoopbackChromedrivers } from '../../support/loopback-chromedrivers';
import { eksPool } from '../../support/one-pool-config';
import { freePort } from '../../support/processes';

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
