/** The router Lambda's wiring from its environment: the bundled config, the secret, the AWS adapters. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, NotFound, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { type Launcher, noMetrics } from '../../functions/core/ports';
import { SessionTokens } from '../../functions/core/session-token';
import type { AwsAdapters } from '../../functions/entry/aws-adapters';
import { awsGrid } from '../../functions/entry/aws-grid';
import { createApp } from '../../functions/http/create-app';
import type { RuntimeMakers } from '../../functions/pools';
import { FakeCloudWatchLogs } from '../support/fake-cloudwatch-logs';
import { FakeLauncher } from '../support/fakes';

const SECRET = 'router-lambda-test-secret-32-bytes!!';

const GRID_CONFIG = {
  browsers: {
    chrome: { versions: { stable: { pools: ['fargate'] } } },
    firefox: { versions: { stable: { pools: ['hub'] } } },
  },
  pools: { fargate: { kind: 'ecs' }, hub: { kind: 'hub', url: 'http://127.0.0.1:4444/wd/hub' } },
  store: { kind: 'dynamodb', table: 'gridgate-sessions' },
};

// What the CDK app tells the functions about the fargate pool it deployed.
const DEPLOYMENT = JSON.stringify({
  pools: {
    fargate: {
      cluster: 'gridgate',
      taskDefinition: 'gridgate-fargate:1',
      subnets: ['subnet-1'],
      securityGroups: ['sg-1'],
      networks: ['10.0.0.0/16'],
    },
  },
});
const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:grid';
// An eks pool as a stack deploys it: its cluster's endpoint and pod networks in the bundled file.
const EKS_POOL = {
  kind: 'eks',
  cluster: 'platform',
  endpoint: 'https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com',
  networks: ['10.40.0.0/16'],
};

function configFile(config: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'gridgate-aws-grid-')), 'gridgate.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

function testAdapters() {
  const made = { tables: [] as string[], launchers: 0 };
  const launcher = new FakeLauncher();
  const adapters: AwsAdapters = {
    sessionStore: async (table) => {
      made.tables.push(table);
      return new MemorySessionStore();
    },
    identity: async () => {
      throw new Error('no eks pods in this test');
    },
    warmTasks: async () => {
      throw new Error('no warm pools in this test');
    },
    metrics: async () => noMetrics,
    secret: async (arn) => {
      if (arn !== ARN)
        throw Object.assign(new Error(`no secret ${arn}`), { name: 'ResourceNotFoundException' });
      return SECRET;
    },
  };
  const makers: RuntimeMakers = {
    ecs: async () => {
      made.launchers++;
      return { runtime: { launcher } };
    },
  };
  return { adapters, made, launcher, makers };
}

describe('awsGrid', () => {
  it('wires the store of the configured table and a launcher per pool kind', async () => {
    const { adapters, made, makers } = testAdapters();
    const { deps } = await awsGrid(
      { GRIDGATE_CONFIG: configFile(GRID_CONFIG), GRIDGATE_DEPLOYMENT: DEPLOYMENT, GRIDGATE_SECRET: SECRET },
      adapters,
      makers,
    );
    expect(made.tables).toEqual(['gridgate-sessions']);
    expect(Object.keys(deps.runtimes).sort()).toEqual(['ecs', 'hub']);
    const id = deps.tokens.sign(
      {
        key: 'k',
        pool: 'hub',
        address: '127.0.0.1:4444',
        upstreamId: 'u',
        handle: '',
        devtools: '',
        createdAt: 1,
        maxAgeMs: 1000,
      },
      'guest',
    );
    expect(deps.tokens.verify(id, 'guest')).toMatchObject({ ok: true, claims: { pool: 'hub' } });
  });

  it('makes the ECS launcher with the first browser it starts, once', async () => {
    const { adapters, made, launcher, makers } = testAdapters();
    const { deps } = await awsGrid(
      { GRIDGATE_CONFIG: configFile(GRID_CONFIG), GRIDGATE_DEPLOYMENT: DEPLOYMENT, GRIDGATE_SECRET: SECRET },
      adapters,
      makers,
    );
    expect(made.launchers).toBe(0);
    const ecs = deps.runtimes.ecs?.launcher as Launcher;
    const request = {
      pool: deps.config.pools.fargate as never,
      key: 'k1',
      user: 'guest',
      idleTimeoutMs: 1000,
      inUseMs: 3_660_000,
      capabilities: {},
      signal: new AbortController().signal,
    };
    const browser = await ecs.start(request);
    await ecs.stop(browser.handle, { key: 'k', pool: request.pool, reason: 'deleted', upstreamId: '' });
    expect(made.launchers).toBe(1);
    expect(launcher.stops).toEqual([browser.handle]);
    await launcher.closeAll();
  });

  it.each([
    ['no GRIDGATE_CONFIG', { GRIDGATE_DEPLOYMENT: DEPLOYMENT }, /GRIDGATE_CONFIG/],
    [
      'no secret',
      { GRIDGATE_DEPLOYMENT: DEPLOYMENT },
      /GRIDGATE_SECRET.*must be set, or GRIDGATE_SECRET_ARN/s,
    ],
    [
      'a short secret',
      { GRIDGATE_DEPLOYMENT: DEPLOYMENT, GRIDGATE_SECRET: 'short' },
      /at least 32 characters/,
    ],
    [
      'a secret ARN it cannot read',
      { GRIDGATE_DEPLOYMENT: DEPLOYMENT, GRIDGATE_SECRET_ARN: `${ARN}-gone` },
      /GRIDGATE_SECRET_ARN[\s\S]*cannot read arn:.*-gone: ResourceNotFoundException/,
    ],
    [
      'an ecs pool the stack did not describe',
      { GRIDGATE_SECRET: SECRET },
      /pools\.fargate\.cluster: not set/,
    ],
  ])('refuses to start with %s', async (name, env: Record<string, string>, problem) => {
    const config = name === 'no GRIDGATE_CONFIG' ? {} : { GRIDGATE_CONFIG: configFile(GRID_CONFIG) };
    await expect(awsGrid({ ...config, ...env }, testAdapters().adapters)).rejects.toThrow(problem);
  });

  it('signs with the Secrets Manager secret GRIDGATE_SECRET_ARN names', async () => {
    const { deps } = await awsGrid(
      { GRIDGATE_CONFIG: configFile(GRID_CONFIG), GRIDGATE_DEPLOYMENT: DEPLOYMENT, GRIDGATE_SECRET_ARN: ARN },
      testAdapters().adapters,
    );
    const check = new SessionTokens(Buffer.from(SECRET));
    const claims = {
      key: 'k',
      pool: 'hub',
      address: '127.0.0.1:4444',
      upstreamId: 'u',
      handle: '',
      devtools: '',
      createdAt: 1000,
      maxAgeMs: 1000,
    };
    expect(check.verify(deps.tokens.sign(claims, 'guest'), 'guest').ok).toBe(true);
  });

  it('gives the fargate pool what GRIDGATE_DEPLOYMENT says, and takes its table as the store', async () => {
    const { adapters, made } = testAdapters();
    const deployment = JSON.stringify({ ...JSON.parse(DEPLOYMENT), table: 'Gridgate-Sessions-9XY' });
    const { deps } = await awsGrid(
      { GRIDGATE_CONFIG: configFile(GRID_CONFIG), GRIDGATE_DEPLOYMENT: deployment, GRIDGATE_SECRET: SECRET },
      adapters,
    );
    expect(deps.config.pools.fargate).toMatchObject({ cluster: 'gridgate', networks: ['10.0.0.0/16'] });
    expect(made.tables).toEqual(['Gridgate-Sessions-9XY']);
  });

  it('reads ecs sessions’ browser logs from the log group GRIDGATE_DEPLOYMENT names', async () => {
    const logs = await FakeCloudWatchLogs.start();
    logs.createLogGroup('Gridgate-BrowsersLogs-1AB');
    logs.log('Gridgate-BrowsersLogs-1AB', 'fargate/browser/task1', ['Started Selenium'], 1);
    const deployment = JSON.stringify({
      ...JSON.parse(DEPLOYMENT),
      browserLogGroup: 'Gridgate-BrowsersLogs-1AB',
    });
    const { deps, agent } = await awsGrid(
      { GRIDGATE_CONFIG: configFile(GRID_CONFIG), GRIDGATE_DEPLOYMENT: deployment, GRIDGATE_SECRET: SECRET },
      { ...testAdapters().adapters, logsClient: async () => logs.client() },
    );
    const id = deps.tokens.sign(
      {
        key: 'k',
        pool: 'fargate',
        address: '10.0.3.7:4444',
        upstreamId: 'u',
        handle: 'task1',
        devtools: '',
        createdAt: 1,
        maxAgeMs: 1000,
      },
      'guest',
    );
    try {
      const app = createApp(deps, { agent });
      const log = await app.request(`/logs/${id}.log`);
      expect(await log.text()).toBe('Started Selenium\n');
      // No recordings bucket in this deployment: no video, and S3 is never asked.
      expect((await app.request(`/video/${id}.mp4`)).status).toBe(404);
    } finally {
      await logs.close();
      await agent.close();
    }
  });

  it('serves an eks session’s video by a presigned redirect to the bucket its pool’s recorder uploads to', async () => {
    const config = {
      browsers: { chrome: { versions: { stable: { pools: ['pods', 'plain'] } } } },
      pools: {
        pods: { ...EKS_POOL, recorder: { image: 'selenium/video:ffmpeg-7.1-20250606' } },
        plain: EKS_POOL,
      },
      store: { kind: 'dynamodb', table: 'gridgate-sessions' },
    };
    // What the CDK app tells the functions of a stack with an eks recorder: its bucket and Region.
    const deployment = JSON.stringify({
      recordingsBucket: 'gridgate-recordingsbucket-1a2b',
      region: 'eu-west-1',
    });
    // Presigning is local (SigV4 over these example credentials); HeadObject is answered by the mock.
    const regions: string[] = [];
    const logsAsked: string[] = [];
    const never = () => Promise.reject(new Error('not in this test'));
    const goneApi = { create: never, read: never, delete: never, list: never };
    // The pods are gone: their logs are only what was kept in the bucket.
    const podApis = async () => () => ({
      ...goneApi,
      log: async (_ns: string, name: string) => void logsAsked.push(name),
    });
    const s3 = new S3Client({
      region: 'eu-west-1',
      credentials: {
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      },
    });
    const mock = mockClient(s3);
    mock.on(HeadObjectCommand).callsFake((input: { Bucket: string; Key: string }) => {
      if (input.Key !== 'videos/0011223344556677.mp4')
        throw new NotFound({ message: 'Not Found', $metadata: { httpStatusCode: 404 } });
      return { ContentLength: 1234, ContentType: 'video/mp4' };
    });
    const { deps, agent } = await awsGrid(
      { GRIDGATE_CONFIG: configFile(config), GRIDGATE_DEPLOYMENT: deployment, GRIDGATE_SECRET: SECRET },
      {
        ...testAdapters().adapters,
        s3Client: async (region) => {
          regions.push(region);
          return s3;
        },
      },
      {
        eks: async () => ({
          runtime: { launcher: new FakeLauncher() },
          podApis: { aws: podApis, kubeconfig: podApis },
        }),
      },
    );
    const idOf = (pool: string, key: string) =>
      deps.tokens.sign(
        {
          key,
          pool,
          address: '10.40.3.7:4444',
          upstreamId: 'u',
          handle: `gg-${key}-abc123`,
          devtools: '',
          createdAt: 1,
          maxAgeMs: 1000,
        },
        'guest',
      );
    try {
      const app = createApp(deps, { agent });
      const video = await app.request(`/video/${idOf('pods', '0011223344556677')}.mp4`);
      expect(video.status).toBe(302);
      expect(video.headers.get('cache-control')).toBe('no-store');
      const url = new URL(video.headers.get('location') ?? '');
      expect(`${url.origin}${url.pathname}`).toBe(
        'https://gridgate-recordingsbucket-1a2b.s3.eu-west-1.amazonaws.com/videos/0011223344556677.mp4',
      );
      expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
      expect(url.searchParams.get('X-Amz-Credential')).toMatch(
        /^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/,
      );
      expect(regions).toEqual(['eu-west-1']);
      expect(mock.commandCalls(HeadObjectCommand).map((call) => call.args[0].input)).toEqual([
        { Bucket: 'gridgate-recordingsbucket-1a2b', Key: 'videos/0011223344556677.mp4' },
      ]);
      // Not uploaded (yet, or never asked): none; a pool without a recorder has none and S3 is not asked.
      expect((await app.request(`/video/${idOf('pods', '8899aabbccddeeff')}.mp4`)).status).toBe(404);
      expect((await app.request(`/video/${idOf('plain', '0011223344556677')}.mp4`)).status).toBe(404);
      // No log kept in the bucket and no pod: none.
      expect((await app.request(`/logs/${idOf('pods', '0011223344556677')}.log`)).status).toBe(404);
      expect(mock.commandCalls(HeadObjectCommand).map((call) => call.args[0].input.Key)).toEqual([
        'videos/0011223344556677.mp4',
        'videos/8899aabbccddeeff.mp4',
        'logs/0011223344556677.log',
      ]);
      expect(logsAsked).toEqual(['gg-0011223344556677-abc123']);
    } finally {
      await agent.close();
    }
  });

  it('refuses local pools and a per-process store, naming both', async () => {
    const config = {
      ...GRID_CONFIG,
      browsers: { chrome: { versions: { stable: { pools: ['laptop'] } } } },
      pools: { laptop: { kind: 'local' } },
      store: { kind: 'memory' },
    };
    const failure = awsGrid(
      { GRIDGATE_CONFIG: configFile(config), GRIDGATE_SECRET: SECRET },
      testAdapters().adapters,
    );
    await expect(failure).rejects.toThrow(/pools\.laptop: local pools cannot run in Lambda/);
    await expect(failure).rejects.toThrow(/store: .*dynamodb/);
  });

  it('refuses container pools, which need podman or Docker on the machine', async () => {
    const config = {
      ...GRID_CONFIG,
      browsers: { chrome: { versions: { stable: { pools: ['boxes'] } } } },
      pools: { boxes: { kind: 'container', image: 'selenium/standalone-chromium' } },
    };
    const failure = awsGrid(
      { GRIDGATE_CONFIG: configFile(config), GRIDGATE_SECRET: SECRET },
      testAdapters().adapters,
    );
    await expect(failure).rejects.toThrow(/pools\.boxes: container pools cannot run in Lambda/);
  });

  it('refuses an eks pool with kubeconfig auth, whose client the Lambda asset leaves out', async () => {
    const config = {
      ...GRID_CONFIG,
      browsers: { chrome: { versions: { stable: { pools: ['pods', 'signed'] } } } },
      pools: { pods: { ...EKS_POOL, auth: 'kubeconfig' }, signed: EKS_POOL },
    };
    const { adapters, made } = testAdapters();
    const failure = awsGrid({ GRIDGATE_CONFIG: configFile(config), GRIDGATE_SECRET: SECRET }, adapters);
    await expect(failure).rejects.toThrow(
      'pools.pods.auth: must be "aws" on AWS (the functions sign EKS tokens with their roles; "kubeconfig" is for the Node server)',
    );
    await expect(failure).rejects.not.toThrow(/pools\.signed/);
    expect(made.tables).toEqual([]);
  });
});
