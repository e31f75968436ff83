/**
 * A streaming Lambda runs on after its client hangs up; the handler turns the response stream closing
 * into an abort of the request's signal, so a session being created is abandoned and its browser stopped.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { installLambdaRuntime, startInvocation } from '../support/lambda-stream-harness';
import { until } from '../support/until';
import { functionUrlEvent, restEvent } from './lambda-events';
import { jsonBody, type LambdaGrid, startLambdaGrid } from './lambda-grid';

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

it('stops the browser when the client disconnects while the session is being created', async () => {
  let newSessionAsked = false;
  lambda = startLambdaGrid({
    launcher: {
      newSession: () => {
        newSessionAsked = true;
        return new Promise<never>(() => {});
      },
    },
  });
  const running = startInvocation(
    lambda.handler,
    restEvent({ method: 'POST', path: '/session', body: NEW_CHROME }),
  );
  await until(() => newSessionAsked, 'the browser to be asked for a session');
  expect(lambda.grid.launcher.stops).toEqual([]);
  running.disconnect();
  await running.result;
  await until(() => lambda?.grid.launcher.stops.length === 1, 'the browser to be stopped');
  expect(lambda.grid.launcher.stops).toEqual(['fake-1']);
  expect(await lambda.grid.sessions.inUse()).toEqual({});
  expect(lambda.grid.logger.fieldsOf('SESSION_FAILED').at(-1)?.reason).toMatch(/client went away/);
});

it('stops forwarding a command answer when the client disconnects mid-body', async () => {
  lambda = startLambdaGrid();
  const created = await lambda.invoke(
    functionUrlEvent({ method: 'POST', path: '/session', body: NEW_CHROME }),
  );
  const { sessionId } = jsonBody<{ value: { sessionId: string } }>(created).value;
  const upstream = lambda.grid.launcher.upstream();
  upstream.respond = () => ({
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: 'x'.repeat(32 * 1024 * 1024),
  });
  const running = startInvocation(
    lambda.handler,
    functionUrlEvent({ method: 'GET', path: `/session/${sessionId}/source` }),
    { highWaterMark: 1024 },
  );
  await until(() => running.written() > 64 * 1024, 'the answer is streaming');
  running.disconnect();
  const invocation = await running.result;
  expect(invocation.error).toBeDefined();
  expect(invocation.body.length).toBeLessThan(32 * 1024 * 1024);
  expect(lambda.handlerErrors).toHaveLength(1);
});
