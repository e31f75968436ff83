/**
 * End to end on an ecs pool with a video recorder, whose tasks log as the awslogs driver does: each fake
 * Fargate task runs the Selenium server standalone a docker-selenium image runs, every line it prints going
 * to its container's stream in the fake CloudWatch Logs. A session drives real Chromium through gridgate,
 * and `GET /logs/{id}.log` serves the owner that stream, read with a real CloudWatchLogsClient through the
 * router's own wiring (pools/ecs/ecs-recordings.ts): while the session runs and after it ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionPool } from '../../../../functions/core/grid-deps';
import { browserLogStreamPrefix } from '../../../../functions/pools/ecs/browser-log-stream';
import { ecsRecordings } from '../../../../functions/pools/ecs/ecs-recordings';
import { FakeCloudWatchLogs } from '../../../support/fake-cloudwatch-logs';
import { type FakeFargateGrid, startFakeFargateGrid } from '../../../support/fake-fargate-grid';
import { until } from '../../../support/until';

// A JVM starts in each task: slower than chromedriver, all the more on a loaded machine.
const TEST_MS = 240_000;
const GROUP = 'Gridgate-BrowsersLogs66D7675E-AbC';
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

let logs: FakeCloudWatchLogs;
let fargate: FakeFargateGrid;

beforeAll(async () => {
  logs = await FakeCloudWatchLogs.start();
  logs.createLogGroup(GROUP);
  fargate = await startFakeFargateGrid({
    browser: 'selenium-server',
    awslogs: { logs, group: GROUP, streamPrefix: browserLogStreamPrefix({ name: 'fargate' }) },
    pool: { recorder: { image: 'selenium/video:ffmpeg-7.1-20250606' } },
    config: { timeouts: { newSession: '180s' } },
    artifacts: {
      ecs: ecsRecordings(
        { logGroup: GROUP },
        (session) => sessionPool(fargate.grid.deps, session),
        async () => logs.client(),
      ),
    },
  });
});

afterAll(async () => {
  await fargate?.close();
  await logs?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: WebDriver answers are free-form JSON, read field by field.
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${fargate.grid.url}${path}`, {
    method,
    headers: JSON_HEADERS,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

describe('an ecs session’s log from its task’s CloudWatch log stream', { timeout: TEST_MS }, () => {
  it('is served while the session runs and whole once it ended', async () => {
    const created = await call('POST', '/session', {
      capabilities: {
        alwaysMatch: {
          browserName: 'chrome',
          'se:recordVideo': true,
          'goog:chromeOptions': { args: ['--headless=new'] },
        },
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const id = created.json.value.sessionId as string;
    const { upstreamId, key } = fargate.grid.deps.tokens.unverifiedClaims(id) ?? {
      upstreamId: '?',
      key: '?',
    };
    expect((await call('POST', `/session/${id}/url`, { url: `${fargate.site.url}/` })).status).toBe(200);

    // Running: the log as far as the task has written it, which names the node's session.
    const running = await until(async () => {
      const answer = await fetch(`${fargate.grid.url}/logs/${id}.log`);
      const text = await answer.text();
      return answer.status === 200 && text.includes(upstreamId) ? text : '';
    }, 'the running session’s log names its node session');
    expect(running).toContain('Started Selenium Standalone');

    expect((await call('DELETE', `/session/${id}`)).status).toBe(200);
    const [task] = [...fargate.fake.tasks.values()];
    expect(fargate.fake.callsOf('StopTask')).toEqual([
      { cluster: 'gridgate-browsers', task: task?.id, reason: 'gridgate: deleted' },
    ]);
    const ended = await fetch(`${fargate.grid.url}/logs/${id}.log`);
    expect(ended.status).toBe(200);
    expect(ended.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await ended.text();
    expect(text.startsWith(running)).toBe(true);
    // Read from the task's own stream, from its head.
    expect(logs.calls.at(-1)).toMatchObject({
      logStreamName: `fargate/browser/${task?.id}`,
      startFromHead: true,
    });
    // The recorder pool's capabilities reached the node: the session's wish, and its key as the video's name.
    expect(text).toContain(`se:recordVideo: true, se:videoName: ${key}`);
    // No recordings bucket in this grid: no video, whatever the recorder would have made.
    expect((await fetch(`${fargate.grid.url}/video/${id}.mp4`)).status).toBe(404);
  });
});
