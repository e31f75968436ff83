import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../functions/core/config';
import { eksPodApis, regionOf } from '../../../functions/pools/eks/eks-pod-apis';
import type { DeployedEksPool } from '../../../functions/pools/eks/eks-pool-check';
import { eksToken } from '../../../functions/pools/eks/eks-token';
import { FakeKubernetesApi } from '../../support/fake-kubernetes-api';
import { FixedClock } from '../../support/fakes';
import { makeTestPki } from '../../support/test-pki';

const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

let kube: FakeKubernetesApi | undefined;
afterEach(() => kube?.close());

function pool(endpoint: string): DeployedEksPool {
  const config = parseConfig(
    {
      browsers: { chrome: { versions: { '156': { pools: ['pods'] } } } },
      pools: { pods: { kind: 'eks', cluster: 'browsers', networks: ['10.0.0.0/8'] } },
    },
    { builtInBrowserVersion: '1' },
  );
  // The schema takes https only; the fake speaks plain http on loopback.
  return { ...(config.pools.pods as DeployedEksPool), endpoint };
}

describe('eksPodApis', () => {
  it("calls the pool's cluster with an EKS token for that cluster, in the process's region", async () => {
    const clock = new FixedClock();
    const token = await eksToken('browsers', 'eu-west-1', CREDENTIALS, clock.now());
    kube = await FakeKubernetesApi.start({ token });
    const apis = eksPodApis({ credentials: async () => CREDENTIALS, region: 'eu-west-1', clock });
    const api = apis(pool(kube.endpoint));
    expect(await api.read('gridgate', 'gg-none')).toBeUndefined();
    expect(apis(pool(kube.endpoint))).toBe(api);
  });

  it("trusts the cluster's own CA from certificateAuthority (base64 PEM, as EKS gives it), and no other", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gridgate-eks-ca-'));
    try {
      const pki = makeTestPki(dir);
      const clock = new FixedClock();
      const token = await eksToken('browsers', 'eu-west-1', CREDENTIALS, clock.now());
      kube = await FakeKubernetesApi.start({
        token,
        tls: { cert: pki.serverCert, key: pki.serverKey, clientCa: pki.ca },
      });
      const apis = eksPodApis({ credentials: async () => CREDENTIALS, region: 'eu-west-1', clock });
      const withCa = (ca: string) => ({
        ...pool(kube?.endpoint as string),
        certificateAuthority: Buffer.from(ca).toString('base64'),
      });
      expect(await apis(withCa(pki.ca)).read('gridgate', 'gg-none')).toBeUndefined();
      const other = makeTestPki(mkdtempSync(join(dir, 'other-')));
      await expect(apis(withCa(other.ca)).read('gridgate', 'gg-none')).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the region from an EKS endpoint, and falls back to the given one elsewhere', () => {
    expect(regionOf({ endpoint: 'https://0A1B2C.gr7.ap-southeast-2.eks.amazonaws.com' }, 'us-east-1')).toBe(
      'ap-southeast-2',
    );
    expect(regionOf({ endpoint: 'https://k8s.example.com' }, 'us-east-1')).toBe('us-east-1');
  });
});
