/**
 * A new session behind Lambda answers `session not created` before the function's timeout, less the
 * safety margin, and stops the browser it had started, even when the config allows longer.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { installLambdaRuntime } from '../support/lambda-stream-harness';
import { restEvent } from './lambda-events';
import { type LambdaGrid, startLambdaGrid, w3cError } from './lambda-grid';

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

/** A browser that starts but never answers the new-session request (a slow image pull, a stuck node). */
const neverAnswers = () => new Promise<never>(() => {});

it('gives up before the Lambda timeout and stops the browser it started', async () => {
  lambda = startLambdaGrid({
    config: { timeouts: { newSession: '10m' } },
    launcher: { newSession: neverAnswers },
    safetyMarginMs: 1000,
  });
  const invocation = await lambda.invoke(restEvent({ method: 'POST', path: '/session', body: NEW_CHROME }), {
    remainingMs: 2500,
  });
  expect(invocation.timedOut).toBe(false);
  const error = w3cError(invocation);
  expect(error).toMatchObject({ status: 500, error: 'session not created' });
  expect(error.message).toMatch(/left before the Lambda function timeout/);
  expect(invocation.headers['retry-after']).toMatch(/^\d+$/);
  expect(lambda.grid.launcher.started).toHaveLength(1);
  expect(lambda.grid.launcher.stops).toEqual(['fake-1']);
  expect(await lambda.grid.sessions.inUse()).toEqual({});
});

it('keeps the config timeout when the Lambda has more time left', async () => {
  lambda = startLambdaGrid({
    config: { timeouts: { newSession: '1s' } },
    launcher: { newSession: neverAnswers },
    safetyMarginMs: 1000,
  });
  const invocation = await lambda.invoke(restEvent({ method: 'POST', path: '/session', body: NEW_CHROME }), {
    remainingMs: 60_000,
  });
  const error = w3cError(invocation);
  expect(error).toMatchObject({ status: 500, error: 'session not created' });
  expect(error.message).toMatch(/took longer than 1s/);
  expect(error.message).not.toMatch(/Lambda/);
  expect(lambda.grid.launcher.stops).toEqual(['fake-1']);
});

it('refuses at once when the safety margin leaves no time, starting nothing', async () => {
  lambda = startLambdaGrid({ safetyMarginMs: 3000 });
  const invocation = await lambda.invoke(restEvent({ method: 'POST', path: '/session', body: NEW_CHROME }), {
    remainingMs: 2000,
  });
  expect(invocation.timedOut).toBe(false);
  expect(w3cError(invocation)).toMatchObject({ status: 500, error: 'session not created' });
  expect(lambda.grid.launcher.stops).toEqual(lambda.grid.launcher.started.map((entry) => entry.handle));
});

it('stops waiting for a slot before the Lambda timeout', async () => {
  lambda = startLambdaGrid({
    config: { pools: { local: { kind: 'local', maxSessions: 1 } }, timeouts: { queue: '10m' } },
    safetyMarginMs: 1000,
  });
  const first = await lambda.invoke(restEvent({ method: 'POST', path: '/session', body: NEW_CHROME }));
  expect(first.statusCode).toBe(200);
  const waiting = await lambda.invoke(restEvent({ method: 'POST', path: '/session', body: NEW_CHROME }), {
    remainingMs: 2500,
  });
  expect(waiting.timedOut).toBe(false);
  expect(w3cError(waiting)).toMatchObject({ status: 500, error: 'session not created' });
  expect(lambda.grid.launcher.started).toHaveLength(1);
});
