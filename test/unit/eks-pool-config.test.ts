import { describe, expect, it } from 'vitest';
import { addressAllowed } from '../../functions/core/browser-network';
import { ConfigError, type PoolConfig, parseConfig } from '../../functions/core/config';
import { checkEksPool } from '../../functions/pools/eks/eks-pool-check';

const DEFAULTS = { builtInBrowserVersion: '156.0.7000.1' };

function withPool(pool: Record<string, unknown>) {
  return {
    browsers: { chrome: { versions: { '156': { pools: ['pods'] } } } },
    pools: { pods: { kind: 'eks', cluster: 'browsers', ...pool } },
  };
}

function problems(pool: Record<string, unknown>): string[] {
  try {
    parseConfig(withPool(pool), DEFAULTS);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`expected ${JSON.stringify(pool)} to be refused`);
}

describe('eks pools in the config', () => {
  it('fills the defaults: namespace, docker-selenium image, resources, ports and AWS auth', () => {
    const pool = parseConfig(withPool({}), DEFAULTS).pools.pods;
    expect(pool).toEqual({
      kind: 'eks',
      name: 'pods',
      cluster: 'browsers',
      namespace: 'gridgate',
      image: 'selenium/standalone-chrome:latest',
      cpu: '1',
      memory: '2Gi',
      fargate: false,
      nodeSelector: {},
      tolerations: [],
      labels: {},
      port: 4444,
      vncPort: 7900,
      vncPassword: 'secret',
      auth: 'aws',
      weight: 1,
      maxSessions: 4,
    });
  });

  it('takes a Spot node selector, a toleration with its default operator and labels', () => {
    const pool = parseConfig(
      withPool({
        endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com',
        nodeSelector: { 'karpenter.sh/capacity-type': 'spot' },
        tolerations: [{ key: 'spot', value: 'true', effect: 'NoSchedule' }],
        labels: { team: 'web' },
        networks: ['10.1.0.0/16'],
      }),
      DEFAULTS,
    ).pools.pods;
    expect(pool).toMatchObject({
      endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com',
      nodeSelector: { 'karpenter.sh/capacity-type': 'spot' },
      tolerations: [{ key: 'spot', operator: 'Equal', value: 'true', effect: 'NoSchedule' }],
      labels: { team: 'web' },
      auth: 'aws',
    });
  });

  it('refuses a missing cluster, a plain-http endpoint, a bad namespace, quantity, label and auth, each by path', () => {
    expect(
      problems({
        cluster: undefined,
        endpoint: 'http://cluster.example.com',
        namespace: 'Grid_Gate',
        cpu: 'lots',
        labels: { team: 'web team' },
        auth: 'password',
      }),
    ).toEqual([
      'pools.pods.cluster: Invalid input: expected string, received undefined',
      'pools.pods.endpoint: must be an https URL',
      'pools.pods.namespace: must be 1–63 lower-case letters, digits or "-"',
      'pools.pods.cpu: must be a Kubernetes quantity such as "500m", "1" or "2Gi"',
      expect.stringMatching(/^pools\.pods\.labels\.team: must be a Kubernetes label value/),
      'pools.pods.auth: must be "aws" or "kubeconfig"',
    ]);
  });
});

describe('an eks pool’s video recorder', () => {
  it('fills docker-selenium’s image, the service account and the resources docker-selenium’s chart gives it', () => {
    const pool = parseConfig(withPool({ recorder: {} }), DEFAULTS).pools.pods;
    expect(pool).toMatchObject({
      recorder: {
        image: 'selenium/video:latest',
        serviceAccount: 'gridgate-recorder',
        cpu: '1',
        memory: '1Gi',
      },
    });
  });

  it('needs its bucket and Region before a pod starts, which the CDK app sets', () => {
    const networks = ['10.1.0.0/16'];
    const bare = parseConfig(withPool({ auth: 'kubeconfig', networks, recorder: {} }), DEFAULTS).pools.pods;
    expect(checkEksPool(bare as never)).toEqual([
      'pools.pods.recorder.bucket: not set (the S3 bucket the recorder uploads videos to; the CDK app sets its recordings bucket)',
      "pools.pods.recorder.region: not set (the bucket's Region; the CDK app sets it)",
    ]);
    const recorder = { bucket: 'gridgate-recordings-1a2b', region: 'eu-west-1' };
    const placed = parseConfig(withPool({ auth: 'kubeconfig', networks, recorder }), DEFAULTS).pools.pods;
    expect(checkEksPool(placed as never)).toEqual([]);
  });

  it('refuses a service account that is no DNS subdomain, and a recorder on Fargate', () => {
    expect(problems({ recorder: { serviceAccount: 'Video_Recorder' } })).toEqual([
      'pools.pods.recorder.serviceAccount: must be lower-case letters, digits, "-" and "." (a DNS subdomain)',
    ]);
    expect(problems({ fargate: true, recorder: {} })).toEqual([
      'pools.pods.recorder: a recorder needs pods on nodes: EKS Pod Identity (its upload credentials) is not available on Fargate',
    ]);
  });
});

describe('addressAllowed for eks pools', () => {
  const pool = parseConfig(withPool({ networks: ['10.1.0.0/16'] }), DEFAULTS).pools.pods as PoolConfig;
  const unset = parseConfig(withPool({}), DEFAULTS).pools.pods as PoolConfig;

  it('allows a pod IP inside the pod networks on the pool port', () => {
    expect(addressAllowed(pool, '10.1.200.7:4444')).toBe(true);
  });

  it.each([
    ['outside the networks', '10.2.0.7:4444'],
    ['on another port', '10.1.200.7:22'],
    ['a host name', 'metadata.google.internal:4444'],
    ['the instance metadata address', '169.254.169.254:4444'],
  ])('refuses an address %s', (_, address) => {
    expect(addressAllowed(pool, address)).toBe(false);
  });

  it('refuses every address while the pool has no networks', () => {
    expect(addressAllowed(unset, '10.1.200.7:4444')).toBe(false);
  });
});
