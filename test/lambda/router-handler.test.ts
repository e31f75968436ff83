/**
 * The router Lambda's handler, invoked in-process with real event shapes through the streaming
 * harness, against fake browsers on 127.0.0.1: sessions, streamed commands, paths and bodies.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LambdaHttpEvent } from '../../functions/servers/lambda/lambda-request';
import { jsonAnswer } from '../support/fakes';
import { installLambdaRuntime } from '../support/lambda-stream-harness';
import { functionUrlEvent, type HttpCall, restEvent } from './lambda-events';
import { jsonBody, type LambdaGrid, startLambdaGrid, w3cError } from './lambda-grid';

const NEW_CHROME = JSON.stringify({
  capabilities: { alwaysMatch: { browserName: 'chrome', webSocketUrl: true } },
});

let uninstall: () => void;
let lambda: LambdaGrid;

beforeAll(() => {
  uninstall = installLambdaRuntime();
});
afterAll(() => uninstall());

function start() {
  // The browser offers BiDi and CDP, as chromedriver and Selenium nodes do.
  lambda = startLambdaGrid({
    launcher: {
      capabilities: {
        webSocketUrl: 'ws://127.0.0.1:9/session/upstream',
        'se:cdp': 'ws://127.0.0.1:9/devtools',
        'se:cdpVersion': '156.0.7000.1',
      },
    },
  });
  return lambda;
}

afterEach(async () => {
  await lambda?.grid.close();
});

async function createSession(
  event: LambdaHttpEvent = restEvent({ method: 'POST', path: '/session', body: NEW_CHROME }),
) {
  const invocation = await lambda.invoke(event);
  expect(invocation.statusCode, invocation.body.toString()).toBe(200);
  return jsonBody<{ value: { sessionId: string; capabilities: Record<string, unknown> } }>(invocation).value;
}

describe.each([
  ['API Gateway REST (payload 1.0)', (call: HttpCall) => restEvent(call)],
  ['a function URL (payload 2.0)', (call: HttpCall) => functionUrlEvent(call)],
])('behind %s', (_, eventFor) => {
  it('creates a session whose capabilities name no WebSocket endpoint', async () => {
    start();
    const session = await createSession(eventFor({ method: 'POST', path: '/session', body: NEW_CHROME }));
    expect(session.sessionId.length).toBeGreaterThan(60);
    expect(session.capabilities).not.toHaveProperty('webSocketUrl');
    expect(session.capabilities).not.toHaveProperty('se:cdp');
    expect(session.capabilities).not.toHaveProperty('se:cdpVersion');
    expect(session.capabilities.browserName).toBe('chrome');
  });

  it('streams a multi-MB command answer in several chunks, byte for byte', async () => {
    start();
    const { sessionId } = await createSession(
      eventFor({ method: 'POST', path: '/session', body: NEW_CHROME }),
    );
    const screenshot = JSON.stringify({ value: randomBytes(3 * 1024 * 1024).toString('base64') });
    lambda.grid.launcher.upstream().respond = () => jsonAnswer(200, JSON.parse(screenshot));
    const invocation = await lambda.invoke(
      eventFor({ method: 'GET', path: `/session/${sessionId}/screenshot` }),
    );
    expect(invocation.statusCode).toBe(200);
    expect(invocation.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(invocation.body.length).toBe(Buffer.byteLength(screenshot));
    expect(invocation.body.equals(Buffer.from(screenshot))).toBe(true);
    expect(invocation.chunks.length).toBeGreaterThan(4);
    expect(invocation.error).toBeUndefined();
  });

  it('answers capabilities nested 10,000 deep with 400 invalid argument naming the limit, launching nothing', async () => {
    start();
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const body = `{"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":${deep}}}}`;
    const invocation = await lambda.invoke(eventFor({ method: 'POST', path: '/session', body }));
    expect(w3cError(invocation)).toMatchObject({ status: 400, error: 'invalid argument' });
    expect(w3cError(invocation).message).toContain('more than 200 levels deep');
    expect(lambda.grid.launcher.started).toEqual([]);
  });

  it('forwards a command body and its query string to the browser', async () => {
    start();
    const { sessionId } = await createSession(
      eventFor({ method: 'POST', path: '/session', body: NEW_CHROME }),
    );
    const script = JSON.stringify({ script: 'return "é ✓"', args: [] });
    const invocation = await lambda.invoke(
      eventFor({
        method: 'POST',
        path: `/session/${sessionId}/execute/sync`,
        query: { a: ['1', '2'], b: ['x y'] },
        body: script,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      }),
    );
    expect(invocation.statusCode).toBe(200);
    const seen = lambda.grid.launcher.upstream().commands().at(-1);
    expect(seen?.method).toBe('POST');
    expect(seen?.path).toMatch(/\/execute\/sync\?a=1&a=2&b=x(\+|%20)y$/);
    expect(seen?.body).toBe(script);
    expect(seen?.headers['content-length']).toBe(String(Buffer.byteLength(script)));
  });

  it('accepts a base64-encoded body', async () => {
    start();
    const session = await createSession(
      eventFor({ method: 'POST', path: '/session', body: NEW_CHROME, base64: true }),
    );
    const value = JSON.stringify({ url: 'https://example.test/ünïcode' });
    const invocation = await lambda.invoke(
      eventFor({ method: 'POST', path: `/session/${session.sessionId}/url`, body: value, base64: true }),
    );
    expect(invocation.statusCode).toBe(200);
    expect(lambda.grid.launcher.upstream().commands().at(-1)?.body).toBe(value);
  });

  it('serves /wd/hub and ends the session on DELETE', async () => {
    start();
    const { sessionId } = await createSession(
      eventFor({ method: 'POST', path: '/wd/hub/session', body: NEW_CHROME }),
    );
    const title = await lambda.invoke(
      eventFor({ method: 'GET', path: `/wd/hub/session/${sessionId}/title` }),
    );
    expect(title.statusCode).toBe(200);
    expect(jsonBody(title)).toEqual({ value: null });
    const deleted = await lambda.invoke(eventFor({ method: 'DELETE', path: `/wd/hub/session/${sessionId}` }));
    expect(deleted.statusCode).toBe(200);
    expect(lambda.grid.launcher.stops).toEqual(['fake-1']);
    const after = await lambda.invoke(eventFor({ method: 'GET', path: `/session/${sessionId}/title` }));
    expect(after.statusCode).toBe(404);
  });
});

describe('REST API paths', () => {
  it.each([
    ['the path without the stage', {}],
    ['the stage in the path', { pathPrefix: '/prod' }],
    ["a custom domain's base path in the path", { pathPrefix: '/grid' }],
    ['only the path, with the stage', { pathPrefix: '/prod', pathOnly: true }],
    ['only the path, without the stage', { pathOnly: true }],
  ])('routes with %s', async (_, options) => {
    start();
    const invocation = await lambda.invoke(restEvent({ method: 'GET', path: '/wd/hub/status' }, options));
    expect(invocation.statusCode).toBe(200);
    expect(jsonBody(invocation).value).toHaveProperty('ready');
  });
});

describe('the prelude', () => {
  it('goes out for an answer without a body', async () => {
    start();
    const { sessionId } = await createSession();
    lambda.grid.launcher.upstream().respond = () => ({ status: 204, body: '' });
    const invocation = await lambda.invoke(
      restEvent({ method: 'POST', path: `/session/${sessionId}/back`, body: '{}' }),
    );
    expect(invocation.prelude).toBeDefined();
    expect(invocation.statusCode).toBe(204);
    expect(invocation.body.length).toBe(0);
  });

  it('carries each Set-Cookie of the answer as a cookie', async () => {
    start();
    const { sessionId } = await createSession();
    lambda.grid.launcher.upstream().respond = () =>
      jsonAnswer(200, { value: null }, { 'set-cookie': 'a=1', 'x-extra': 'yes' });
    const invocation = await lambda.invoke(
      functionUrlEvent({ method: 'GET', path: `/session/${sessionId}/url` }),
    );
    expect(invocation.cookies).toEqual(['a=1']);
    expect(invocation.headers['x-extra']).toBe('yes');
    expect(invocation.headers).not.toHaveProperty('set-cookie');
  });
});
