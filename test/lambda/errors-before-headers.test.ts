/**
 * Errors raised before the answer's headers go out reach the client with their real status and a W3C
 * body, through the Lambda response stream (hono/aws-lambda's streamHandle would answer 200 there).
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { streamingHandler } from '../../functions/servers/lambda/streaming-handler';
import { installLambdaRuntime, invoke } from '../support/lambda-stream-harness';
import { functionUrlEvent, restEvent } from './lambda-events';
import { jsonBody, type LambdaGrid, startLambdaGrid, w3cError } from './lambda-grid';

let uninstall: () => void;
let lambda: LambdaGrid | undefined;

beforeAll(() => {
  uninstall = installLambdaRuntime();
});
afterAll(() => uninstall());
afterEach(async () => {
  await lambda?.grid.close();
  lambda = undefined;
});

const NEW_CHROME = JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } });

it('answers a malformed JSON body with 400 invalid argument', async () => {
  lambda = startLambdaGrid();
  const invocation = await lambda.invoke(
    restEvent({ method: 'POST', path: '/session', body: '{"capabilities":' }),
  );
  expect(w3cError(invocation)).toMatchObject({ status: 400, error: 'invalid argument' });
  expect(lambda.grid.launcher.started).toHaveLength(0);
});

it('answers a tampered session ID with 404 invalid session id, sending nothing to any browser', async () => {
  lambda = startLambdaGrid();
  const created = await lambda.invoke(
    functionUrlEvent({ method: 'POST', path: '/session', body: NEW_CHROME }),
  );
  const { sessionId } = jsonBody<{ value: { sessionId: string } }>(created).value;
  const last = sessionId.at(-1) === 'A' ? 'B' : 'A';
  const tampered = `${sessionId.slice(0, -1)}${last}`;
  const before = lambda.grid.agent.dispatched.length;
  const invocation = await lambda.invoke(
    functionUrlEvent({ method: 'GET', path: `/session/${tampered}/title` }),
  );
  expect(w3cError(invocation)).toMatchObject({ status: 404, error: 'invalid session id' });
  expect(lambda.grid.agent.dispatched.length).toBe(before);
});

it('answers an exception inside the app with 500 unknown error, not 200', async () => {
  // Breaks once the session exists: the new session touches its record too, and must succeed here.
  class BrokenStore extends MemorySessionStore {
    broken = false;
    override touch(...args: Parameters<MemorySessionStore['touch']>): void {
      if (this.broken) throw new TypeError('the store broke');
      super.touch(...args);
    }
  }
  const sessions = new BrokenStore();
  lambda = startLambdaGrid({ sessions });
  const created = await lambda.invoke(restEvent({ method: 'POST', path: '/session', body: NEW_CHROME }));
  expect(created.statusCode).toBe(200);
  const { sessionId } = jsonBody<{ value: { sessionId: string } }>(created).value;
  sessions.broken = true;
  const invocation = await lambda.invoke(restEvent({ method: 'GET', path: `/session/${sessionId}/title` }));
  const error = w3cError(invocation);
  expect(error).toMatchObject({ status: 500, error: 'unknown error' });
  // Details stay in the log.
  expect(error.message).not.toMatch(/store broke/);
  expect(lambda.grid.logger.events()).toContain('REQUEST_FAILED');
});

it('answers 500 unknown error when the app itself fails to answer', async () => {
  const failures: unknown[] = [];
  const handler = streamingHandler(
    () => {
      throw new Error('the app is broken');
    },
    { onError: (error) => failures.push(error) },
  );
  const invocation = await invoke(handler, restEvent({ method: 'GET', path: '/status' }));
  expect(w3cError(invocation)).toMatchObject({ status: 500, error: 'unknown error' });
  expect(invocation.error).toBeUndefined();
  expect(String(failures[0])).toMatch(/the app is broken/);
});

it('answers an event no request can be made of with 400 invalid argument', async () => {
  lambda = startLambdaGrid();
  const event = restEvent({ method: 'GET', path: '/status', headers: { 'x-bad': 'line\r\nbreak' } });
  const invocation = await lambda.invoke(event);
  expect(w3cError(invocation)).toMatchObject({ status: 400, error: 'invalid argument' });
});

it('answers an unknown path with 404 unknown command', async () => {
  lambda = startLambdaGrid();
  const invocation = await lambda.invoke(restEvent({ method: 'GET', path: '/nowhere' }));
  expect(w3cError(invocation)).toMatchObject({ status: 404, error: 'unknown command' });
});
