/**
 * The router bundle, built as deployed, under the real Lambda runtime interface client (aws-lambda-ric on
 * Node.js 22) and the Runtime API emulator, in one warm environment for the whole file: REST (payload
 * 1.0) and function URL (payload 2.0) sessions on real Chromium through the fake ECS API's tasks, the
 * streamed bytes as the service reads them, error trailers, deadlines, base64, binary and multi-MB
 * bodies, and no connection to anything but loopback. The store is dynalite; every AWS endpoint is local.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionUrlEvent, type HttpCall, restEvent } from '../lambda/lambda-events';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { FakeEcsApi } from '../support/fake-ecs-api';
import type { RuntimeInvocation } from '../support/lambda-runtime-api';
import { freePort } from '../support/processes';
import { RealLambda } from '../support/real-lambda';
import { BROKEN_BODY_PREFIX, ScriptedHub } from '../support/scripted-hub';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { until } from '../support/until';

const SLOW = 180_000;
let lambda: RealLambda;
let dynamo: DynaliteServer;
let table: SessionTableUnderTest;
let ecs: FakeEcsApi;
let hub: ScriptedHub;
let site: TestPageServer;

beforeAll(async () => {
  [dynamo, ecs, hub, site] = await Promise.all([
    startDynalite(),
    FakeEcsApi.start({ containerPort: await freePort() }),
    ScriptedHub.start(),
    startTestPageServer(),
  ]);
  table = await dynamo.createSessionTable();
  const config = join(mkdtempSync(join(tmpdir(), 'gridgate-real-lambda-config-')), 'gridgate.json');
  writeFileSync(
    config,
    JSON.stringify({
      browsers: {
        chrome: { versions: { stable: { pools: ['fargate'] } } },
        firefox: { versions: { stable: { pools: ['scripted'] } } },
      },
      pools: { fargate: ecs.poolSettings(), scripted: { kind: 'hub', url: hub.url, maxSessions: 100 } },
      store: { kind: 'dynamodb', table: table.table },
    }),
  );
  lambda = await RealLambda.start({
    GRIDGATE_CONFIG: config,
    GRIDGATE_SECRET: 'real-runtime-secret-real-runtime-secret!',
    AWS_ACCESS_KEY_ID: 'AKIDREALRUNTIME',
    AWS_SECRET_ACCESS_KEY: 'real-runtime',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_ECS: ecs.endpoint,
  });
}, 15 * 60_000);

afterAll(async () => {
  await lambda?.close();
  await Promise.all([ecs?.close(), hub?.close(), site?.close()]);
  await table?.close();
  await dynamo?.close();
});

/** The answer's status and JSON, from the prelude and the body after the 8 NULs. */
function answer(invocation: RuntimeInvocation) {
  return {
    status: invocation.prelude?.statusCode,
    // biome-ignore lint/suspicious/noExplicitAny: a WebDriver answer, read field by field.
    json: JSON.parse(invocation.body.toString('utf8')) as { value: any },
  };
}

const EVENTS = [
  ['API Gateway REST (payload 1.0)', (call: HttpCall) => restEvent(call)],
  ['a function URL (payload 2.0)', (call: HttpCall) => functionUrlEvent(call)],
] as const;

// Chromium in the fake task is Debian's, run as root with no display: docker-selenium sets these itself.
const HEADLESS = { args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] };

const newSession = (browserName: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    capabilities: {
      alwaysMatch: {
        browserName,
        ...(browserName === 'chrome' ? { 'goog:chromeOptions': HEADLESS } : {}),
        ...extra,
      },
    },
  });

describe.each(EVENTS)('behind %s', (_, eventFor) => {
  const call = (method: string, path: string, body?: unknown, timeoutMs?: number) =>
    lambda.invoke(
      eventFor({ method, path, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
      timeoutMs,
    );

  /** A new session's ID, on Chromium in a Fargate task (chrome) or on the scripted hub (firefox). */
  const sessionOn = async (browserName: 'chrome' | 'firefox') => {
    const created = await lambda.invoke(
      eventFor({ method: 'POST', path: '/session', body: newSession(browserName) }),
    );
    expect(answer(created).status, created.body.toString()).toBe(200);
    return answer(created).json.value.sessionId as string;
  };

  it(
    'starts a Fargate task, drives Chromium in it and stops it on DELETE',
    async () => {
      const id = await sessionOn('chrome');
      expect((await call('POST', `/session/${id}/url`, { url: site.url })).prelude?.statusCode).toBe(200);
      expect(answer(await call('GET', `/session/${id}/title`)).json.value).toBe('gridgate test page');
      const task = [...ecs.tasks.values()].at(-1);
      expect(task?.desiredStatus).toBe('RUNNING');
      expect(answer(await call('DELETE', `/session/${id}`)).status).toBe(200);
      expect(task?.desiredStatus).toBe('STOPPED');
    },
    SLOW,
  );

  it(
    'streams an 8 MB answer as a JSON prelude, 8 NULs and the body, in many chunks',
    async () => {
      const id = await sessionOn('chrome');
      const big = await call('POST', `/session/${id}/execute/sync`, {
        script: "return 'x'.repeat(8000000)",
        args: [],
      });
      expect(big.responseHeaders['lambda-runtime-function-response-mode']).toBe('streaming');
      expect(big.responseHeaders['transfer-encoding']).toBe('chunked');
      expect(big.responseHeaders.trailer).toMatch(/Lambda-Runtime-Function-Error-Type/i);
      expect(big.responseHeaders['content-type']).toBe('application/vnd.awslambda.http-integration-response');
      const prelude = JSON.stringify(big.prelude);
      expect(big.raw.subarray(0, prelude.length).toString()).toBe(prelude);
      expect(big.raw.subarray(prelude.length, prelude.length + 8)).toEqual(Buffer.alloc(8));
      expect(big.prelude?.headers?.['content-type']).toMatch(/^application\/json/);
      expect(answer(big).json.value).toHaveLength(8_000_000);
      expect(big.chunks.length).toBeGreaterThan(1);
      expect(big.error).toBeUndefined();
      await call('DELETE', `/session/${id}`);
    },
    SLOW,
  );

  it(
    'passes a 4 MB base64-encoded request body to Chromium',
    async () => {
      const id = await sessionOn('chrome');
      const text = randomBytes(3_000_000).toString('base64');
      const body = JSON.stringify({ script: 'return arguments[0].length', args: [text] });
      const sent = await lambda.invoke(
        eventFor({ method: 'POST', path: `/session/${id}/execute/sync`, body, base64: true }),
      );
      expect(answer(sent)).toEqual({ status: 200, json: { value: text.length } });
      await call('DELETE', `/session/${id}`);
    },
    SLOW,
  );

  it('passes a binary body byte for byte', async () => {
    const id = await sessionOn('firefox');
    const bytes = randomBytes(256 * 1024);
    const sent = await lambda.invoke(
      eventFor({ method: 'POST', path: `/session/${id}/test/echo`, body: bytes, base64: true }),
    );
    expect(answer(sent).json.value).toEqual({
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  });

  it('marks the stream broken with error trailers when the browser breaks off mid-answer', async () => {
    const id = await sessionOn('firefox');
    const broken = await call('GET', `/session/${id}/test/break`);
    expect(broken.prelude?.statusCode).toBe(200);
    expect(broken.body.toString().startsWith(BROKEN_BODY_PREFIX.slice(0, 1000))).toBe(true);
    expect(broken.trailers['lambda-runtime-function-error-type']).toBeTruthy();
    expect(broken.error?.body).toMatchObject({
      errorType: expect.any(String),
      errorMessage: expect.any(String),
    });
  });

  it('answers session not created before the deadline when a new session hangs', async () => {
    const hung = await call(
      'POST',
      '/session',
      JSON.parse(newSession('firefox', { 'test:hang': true })),
      6000,
    );
    expect(hung.timedOut).toBe(false);
    expect(hung.finishedAt).toBeLessThan(hung.deadlineMs);
    expect(answer(hung)).toMatchObject({ status: 500, json: { value: { error: 'session not created' } } });
    expect(answer(hung).json.value.message).toMatch(/Lambda function timeout/);
  });

  it('answers timeout before the deadline when a command hangs', async () => {
    const id = await sessionOn('firefox');
    const hung = await call('GET', `/session/${id}/test/hang`, undefined, 6000);
    expect(hung.timedOut).toBe(false);
    expect(hung.finishedAt).toBeLessThan(hung.deadlineMs);
    expect(answer(hung)).toMatchObject({ status: 500, json: { value: { error: 'timeout' } } });
  });
});

it('served every invocation from one warm environment, initialised once', async () => {
  expect(lambda.child.exitCode).toBeNull();
  expect(lambda.api.initErrors).toEqual([]);
  // One /next per invocation served, and the one waiting now (asked for just after the last answer):
  // no restart, no second init.
  await until(
    () => lambda.api.nextCalls > lambda.api.invocations.length,
    'the runtime asks for the next one',
    {
      timeoutMs: 5000,
    },
  ).catch(() => undefined); // the expectation below says how many it asked for
  expect(lambda.api.nextCalls).toBe(lambda.api.invocations.length + 1);
  expect(lambda.api.invocations.length).toBeGreaterThanOrEqual(30);
});

it('connected to nothing but loopback', () => {
  const connections = lambda.connections();
  expect(connections.filter((entry) => entry.kind === 'connect').length).toBeGreaterThan(0);
  expect(connections.filter((entry) => !entry.allowed)).toEqual([]);
});
