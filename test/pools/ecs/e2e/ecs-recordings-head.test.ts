/**
 * A Node server head (`npm start`, as the service front door's container and the Web Function run it) serves
 * ecs sessions' videos and browser logs where the stack keeps them, as the router Lambda does: its
 * GRIDGATE_DEPLOYMENT names the recordings bucket and the browsers' log group, and the AWS SDK finds every
 * service at the endpoint its environment names. ECS is the in-process fake whose tasks are real chromedriver
 * and Chromium, each task's output going to its stream in the fake CloudWatch Logs as awslogs sends it; S3 is
 * a fake that checks the presigned URL's signature. The server runs under the loopback guard, which records
 * every connection and name lookup it makes: none leaves this machine. The ended session is listed on the
 * status page from the head's store, as grid-wiring.ts wires it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionTokens } from '../../../../functions/core/session-token';
import { browserLogStreamPrefix } from '../../../../functions/pools/ecs/browser-log-stream';
import { PRESIGNED_SECONDS, videoKey } from '../../../../functions/pools/selenium-node/s3-recordings';
import { FakeCloudWatchLogs } from '../../../support/fake-cloudwatch-logs';
import { FakeEcsApi } from '../../../support/fake-ecs-api';
import { FAKE_S3_CREDENTIALS, FAKE_S3_REGION, FakeS3 } from '../../../support/fake-s3';
import { type NodeServerProcess, startNodeServer } from '../../../support/node-server-process';
import { freePortBelowEphemeral } from '../../../support/processes';
import type { GuardEntry } from '../../../support/real-lambda';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { until } from '../../../support/until';

const TEST_MS = 120_000;
const GROUP = 'Gridgate-BrowsersLogs66D7675E-AbC';
const BUCKET = 'gridgate-recordingsbucket-1a2b3c4d';
const GUARD = fileURLToPath(new URL('../../../support/loopback-guard.cjs', import.meta.url));
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

let logs: FakeCloudWatchLogs;
let ecs: FakeEcsApi;
let s3: FakeS3;
let site: TestPageServer;
let server: NodeServerProcess;
let dir: string;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gridgate-ecs-head-'));
  logs = await FakeCloudWatchLogs.start();
  logs.createLogGroup(GROUP);
  [ecs, s3, site] = await Promise.all([
    FakeEcsApi.start({
      containerPort: await freePortBelowEphemeral(),
      awslogs: { logs, group: GROUP, streamPrefix: browserLogStreamPrefix({ name: 'fargate' }) },
    }),
    FakeS3.start([BUCKET]),
    startTestPageServer(),
  ]);
  const { cluster, taskDefinition, subnets, securityGroups, networks, port } = ecs.poolSettings();
  // What the CDK app gives a head: the pool's cluster and network, the bucket and the log group.
  const deployment = {
    pools: { fargate: { cluster, taskDefinition, subnets, securityGroups, networks } },
    recordingsBucket: BUCKET,
    browserLogGroup: GROUP,
  };
  writeFileSync(join(dir, 'connections.jsonl'), '');
  server = startNodeServer(
    {
      port: 0,
      host: '127.0.0.1',
      workers: 1,
      browsers: { chrome: { versions: { stable: { pools: ['fargate'] } } } },
      pools: { fargate: { kind: 'ecs', port } },
      // Its own disk for local recordings, which the page lists too: not those other tests' servers keep in
      // the default folder meanwhile.
      recording: { directory: join(dir, 'recordings') },
    },
    {
      GRIDGATE_DEPLOYMENT: JSON.stringify(deployment),
      AWS_REGION: FAKE_S3_REGION,
      AWS_ACCESS_KEY_ID: FAKE_S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: FAKE_S3_CREDENTIALS.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ENDPOINT_URL_ECS: ecs.endpoint,
      AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: logs.endpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      NODE_OPTIONS: `--require ${GUARD}`,
      LOOPBACK_GUARD_LOG: join(dir, 'connections.jsonl'),
    },
  );
  url = await server.url;
}, TEST_MS);

afterAll(async () => {
  await server?.stop();
  // Whatever a failed test left: the fake stops its tasks' processes.
  await ecs?.close();
  await Promise.allSettled([logs?.close(), s3?.close(), site?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: WebDriver answers are free-form JSON, read field by field.
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: JSON_HEADERS,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

/** The session's key, which its ID carries (read without the server's secret, which only it has). */
function keyOf(id: string): string {
  const claims = new SessionTokens(randomBytes(32)).unverifiedClaims(id);
  if (!claims) throw new Error(`not a session ID: ${id}`);
  return claims.key;
}

function connections(): GuardEntry[] {
  return readFileSync(join(dir, 'connections.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as GuardEntry);
}

describe('a Node server head with a deployment’s recordings bucket and browser log group', {
  timeout: TEST_MS,
}, () => {
  it('serves an ecs session’s log while it runs and after, lists it on the status page, and its video by a presigned redirect', async () => {
    const created = await call('POST', '/session', {
      capabilities: {
        alwaysMatch: {
          browserName: 'chrome',
          'se:name': 'checkout from a head',
          'gridgate:options': { log: true },
          'goog:chromeOptions': { args: ['--headless=new', '--no-sandbox', '--disable-gpu'] },
        },
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const id = created.json.value.sessionId as string;
    expect((await call('POST', `/session/${id}/url`, { url: `${site.url}/` })).status).toBe(200);
    const [task] = [...ecs.tasks.values()];

    // Running: the task's stream as far as it is written, read with GetLogEvents from the head.
    const running = await until(async () => {
      const answer = await fetch(`${url}/logs/${id}.log`);
      const text = await answer.text();
      return answer.status === 200 && text.includes('ChromeDriver was started successfully') ? text : '';
    }, 'the running session’s log has the task’s output');
    expect(logs.calls.at(-1)).toMatchObject({
      logGroupName: GROUP,
      logStreamName: `fargate/browser/${task?.id}`,
      startFromHead: true,
    });

    // No video until the recorder has uploaded one: the same 404 as for any missing recording.
    const before = await fetch(`${url}/video/${id}.mp4`, { redirect: 'manual' });
    expect(before.status).toBe(404);
    expect((await before.json()).value.error).toBe('invalid session id');

    expect((await call('DELETE', `/session/${id}`)).status).toBe(200);
    expect(task?.desiredStatus).toBe('STOPPED');
    const ended = await fetch(`${url}/logs/${id}.log`);
    expect(ended.status).toBe(200);
    expect((await ended.text()).startsWith(running)).toBe(true);

    // The status page lists the ended session from the store, with its log (its pool runs no recorder: no video).
    const key = keyOf(id);
    const page = await call('GET', '/ui/api/recordings');
    expect(page.json.recordings).toEqual([
      expect.objectContaining({ key, name: 'checkout from a head', logUrl: `ui/api/recordings/${key}/log` }),
    ]);
    expect(page.json.recordings[0]).not.toHaveProperty('videoUrl');
    const listedLog = await fetch(`${url}/${page.json.recordings[0].logUrl}`);
    expect(listedLog.status).toBe(200);
    expect((await listedLog.text()).startsWith(running)).toBe(true);

    // The recorder uploads videos/{session key}.mp4 when the session ends.
    const video = Buffer.from('a fragmented MP4, as the recorder uploads it');
    s3.put(BUCKET, videoKey(key), video, 'binary/octet-stream');
    const redirect = await fetch(`${url}/video/${id}.mp4`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('cache-control')).toBe('no-store');
    const location = new URL(redirect.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${s3.endpoint}/${BUCKET}/videos/${key}.mp4`);
    expect(location.searchParams.get('X-Amz-Expires')).toBe(String(PRESIGNED_SECONDS));
    // The head asked S3 whether it is there (HeadObject, signed); the link itself was signed locally.
    expect(s3.calls).toEqual([
      expect.objectContaining({ method: 'HEAD', key: videoKey(key), auth: 'header', status: 403 }),
      expect.objectContaining({ method: 'HEAD', key: videoKey(key), auth: 'header', status: 200 }),
    ]);

    // The owner's client follows it to S3, which takes the signature and serves the video as the link says.
    const followed = await fetch(location);
    expect(followed.status).toBe(200);
    expect(followed.headers.get('content-type')).toBe('video/mp4');
    expect(followed.headers.get('content-disposition')).toBe(`inline; filename="${key}.mp4"`);
    expect(Buffer.from(await followed.arrayBuffer())).toEqual(video);

    // Every connection and lookup the server made stayed on this machine.
    const made = connections();
    expect(made.filter((entry) => !entry.allowed)).toEqual([]);
    const ports = (endpoint: string) => Number(new URL(endpoint).port);
    const reached = new Set(made.flatMap((entry) => (entry.kind === 'connect' ? [entry.port] : [])));
    for (const endpoint of [ecs.endpoint, logs.endpoint, s3.endpoint])
      expect(reached).toContain(ports(endpoint));
  });
});
