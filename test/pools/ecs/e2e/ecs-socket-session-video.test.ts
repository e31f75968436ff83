/**
 * End to end on an ecs pool whose tasks run docker-selenium's video recorder beside the browser (as
 * ecs-recorded-video.test.ts runs them: the Selenium server headful on an X display, the recorder's stand-in
 * filming it and uploading to a fake S3 when the task stops), served by a Node server head with the
 * deployment's recordings bucket (as ecs-recordings-head.test.ts runs one): a Playwright connection that asks
 * `?enableVideo=true` (Moon's option) is recorded as a WebDriver session asking `se:recordVideo` is; once the
 * socket closes, the status page lists it under its test name and serves its H.264 video from the bucket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoKey } from '../../../../functions/pools/selenium-node/s3-recordings';
import { FakeEcsApi } from '../../../support/fake-ecs-api';
import { FAKE_S3_CREDENTIALS, FAKE_S3_REGION, FakeS3 } from '../../../support/fake-s3';
import { SCREEN } from '../../../support/loopback-vnc-browsers';
import { type NodeServerProcess, startNodeServer } from '../../../support/node-server-process';
import { freePortBelowEphemeral } from '../../../support/processes';
import { recorderTaskDefinition } from '../../../support/recorder-task-definition';
import { recordedPlaywrightVisit } from '../../../support/socket-session-clients';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';

// A JVM and a headful Chromium start in the task, and ffmpeg encodes beside them: slow on a loaded machine.
const TEST_MS = 240_000;
const BUCKET = 'gridgate-recordingsbucket-1a2b3c4d';
const NAME = 'ecs-recorded-pw';

let s3: FakeS3;
let ecs: FakeEcsApi;
let site: TestPageServer;
let server: NodeServerProcess;
let url: string;

beforeAll(async () => {
  const containerPort = await freePortBelowEphemeral();
  s3 = await FakeS3.start([BUCKET]);
  [ecs, site] = await Promise.all([
    FakeEcsApi.start({
      containerPort,
      taskDefinition: recorderTaskDefinition(containerPort, BUCKET),
      recorderS3: { endpoint: s3.endpoint, credentials: FAKE_S3_CREDENTIALS },
    }),
    startTestPageServer(),
  ]);
  const { cluster, taskDefinition, subnets, securityGroups, networks, port } = ecs.poolSettings();
  server = startNodeServer(
    {
      port: 0,
      host: '127.0.0.1',
      workers: 1,
      browsers: { chrome: { versions: { stable: { pools: ['fargate'] } } } },
      pools: { fargate: { kind: 'ecs', port, recorder: { image: 'selenium/video:ffmpeg-7.1-20250606' } } },
      timeouts: { newSession: '180s' },
    },
    {
      // What the CDK app gives a head: the pool's cluster and network, and the recordings bucket.
      GRIDGATE_DEPLOYMENT: JSON.stringify({
        pools: { fargate: { cluster, taskDefinition, subnets, securityGroups, networks } },
        recordingsBucket: BUCKET,
      }),
      AWS_REGION: FAKE_S3_REGION,
      AWS_ACCESS_KEY_ID: FAKE_S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: FAKE_S3_CREDENTIALS.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ENDPOINT_URL_ECS: ecs.endpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
    },
  );
  url = await server.url;
}, TEST_MS);

afterAll(async () => {
  await server?.stop();
  // Whatever a failed test left: the fake stops its tasks' processes.
  await ecs?.close();
  await Promise.allSettled([s3?.close(), site?.close()]);
});

describe('recording an ecs session that is a WebSocket', { timeout: TEST_MS }, () => {
  it("records a Playwright connection that asks enableVideo=true with the task's recorder", async () => {
    const video = await recordedPlaywrightVisit(url, site.url, NAME);
    expect(video).toMatchObject({ codec: 'h264', width: SCREEN.width, height: SCREEN.height });
    expect(video.frames).toBeGreaterThan(0);
    // The task's recorder uploaded it to the recordings bucket, under the session's key.
    const listed = (await (await fetch(`${url}/ui/api/recordings?q=${NAME}`)).json()) as {
      recordings: { key: string }[];
    };
    const key = listed.recordings[0]?.key ?? '';
    expect(s3.calls.filter((call) => call.method === 'PUT')).toEqual([
      expect.objectContaining({ bucket: BUCKET, key: videoKey(key), status: 200 }),
    ]);
  });
});
