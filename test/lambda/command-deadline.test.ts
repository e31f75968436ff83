/**
 * Commands behind Lambda are bounded by the runtime's limits: a browser that does not answer gets the
 * client W3C `timeout` before the invocation's deadline (less the safety margin) and before API Gateway
 * REST's 5 minutes without a byte, instead of the cut the client would otherwise see with no answer.
 * The Node server has neither limit: its command path keeps undici's own timeouts.
 */
import { describe, expect, it } from 'vitest';
import { commandWait, SILENCE_MARGIN_MS } from '../../functions/http/runtime-limits';
import type { LambdaHttpEvent } from '../../functions/servers/lambda/lambda-request';
import { functionUrlEvent, type HttpCall, restEvent } from './lambda-events';
import { jsonBody, type LambdaGrid, NEW_CHROME, useLambdaGrids, w3cError } from './lambda-grid';

const lambdas = useLambdaGrids();

/** A browser that takes the command and never answers (a hung page load, a stuck async script). */
const neverAnswers = () => new Promise<never>(() => {});

async function sessionOf(grid: LambdaGrid, eventFor: (call: HttpCall) => LambdaHttpEvent): Promise<string> {
  const created = await grid.invoke(eventFor({ method: 'POST', path: '/session', body: NEW_CHROME }));
  expect(created.statusCode, created.body.toString()).toBe(200);
  return jsonBody<{ value: { sessionId: string } }>(created).value.sessionId;
}

describe.each([
  ['API Gateway REST (payload 1.0)', (call: HttpCall) => restEvent(call)],
  ['a function URL (payload 2.0)', (call: HttpCall) => functionUrlEvent(call)],
])('behind %s', (_, eventFor) => {
  it('answers timeout before the Lambda deadline when the browser does not answer a command', async () => {
    const lambda = lambdas.start({ safetyMarginMs: 1000 });
    const id = await sessionOf(lambda, eventFor);
    lambda.grid.launcher.upstream().respond = neverAnswers;
    const invocation = await lambda.invoke(
      eventFor({ method: 'POST', path: `/session/${id}/url`, body: '{"url":"http://127.0.0.1:9/"}' }),
      { remainingMs: 2500 },
    );
    expect(invocation.timedOut).toBe(false);
    const error = w3cError(invocation);
    expect(error).toMatchObject({ status: 500, error: 'timeout' });
    expect(error.message).toMatch(/did not answer within .* left before the Lambda function timeout/);
    expect(
      lambda.grid.launcher
        .upstream()
        .commands()
        .map((c) => c.path),
    ).toEqual([`/session/${lambda.grid.launcher.upstream().sessionIds[0]}/url`]);
  });

  it('stops a browser that does not answer DELETE in time, and says timeout', async () => {
    const lambda = lambdas.start({ safetyMarginMs: 1000 });
    const id = await sessionOf(lambda, eventFor);
    lambda.grid.launcher.upstream().respond = neverAnswers;
    const invocation = await lambda.invoke(eventFor({ method: 'DELETE', path: `/session/${id}` }), {
      remainingMs: 2500,
    });
    expect(invocation.timedOut).toBe(false);
    expect(w3cError(invocation)).toMatchObject({ status: 500, error: 'timeout' });
    expect(lambda.grid.launcher.stops).toEqual(['fake-1']);
    expect(await lambda.grid.sessions.inUse()).toEqual({});
  });
});

it("answers timeout before API Gateway REST's silence limit when the Lambda has longer", async () => {
  // The limit shortened to 5.5 s so the test need not wait 5 minutes: the answer is due 0.5 s in.
  const lambda = lambdas.start({ restSilenceMs: SILENCE_MARGIN_MS + 500 });
  const id = await sessionOf(lambda, restEvent);
  lambda.grid.launcher.upstream().respond = neverAnswers;
  const invocation = await lambda.invoke(restEvent({ method: 'GET', path: `/session/${id}/title` }), {
    remainingMs: 20_000,
  });
  const error = w3cError(invocation);
  expect(error).toMatchObject({ status: 500, error: 'timeout' });
  expect(error.message).toMatch(/API Gateway ends an answer after 6s without a byte/);
});

it('leaves a function URL command to the deadline alone: it has no silence limit', async () => {
  const lambda = lambdas.start({ restSilenceMs: SILENCE_MARGIN_MS + 500, safetyMarginMs: 1000 });
  const id = await sessionOf(lambda, functionUrlEvent);
  const upstream = lambda.grid.launcher.upstream();
  // Answers after 1.5 s: past the REST limit, well inside the function URL's deadline.
  upstream.respond = () =>
    new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: '{"value":"late"}' }), 1500));
  const invocation = await lambda.invoke(functionUrlEvent({ method: 'GET', path: `/session/${id}/title` }), {
    remainingMs: 60_000,
  });
  expect(invocation.statusCode).toBe(200);
  expect(invocation.body.toString()).toBe('{"value":"late"}');
});

describe('commandWait', () => {
  it('sets no limit where the runtime has none (the Node server)', () => {
    expect(commandWait(undefined, Date.now())).toBeUndefined();
    expect(commandWait({ incoming: {}, outgoing: {} }, Date.now())).toBeUndefined();
  });

  it('takes the sooner of the deadline and the silence limit less its margin', () => {
    const now = 1_000_000;
    const silenceLimit = { ms: 300_000, source: 'API Gateway' };
    const deadline = { deadline: now + 10_000, deadlineSource: 'the Lambda function timeout' };
    expect(commandWait({ ...deadline, silenceLimit }, now)?.ms).toBe(10_000);
    const later = { deadline: now + 900_000, deadlineSource: 'the Lambda function timeout' };
    expect(commandWait({ ...later, silenceLimit }, now)).toMatchObject({
      ms: 300_000 - SILENCE_MARGIN_MS,
      bodyIdleMs: 300_000 - SILENCE_MARGIN_MS,
    });
    expect(commandWait({ deadline: now - 5, deadlineSource: 'x' }, now)?.ms).toBe(0);
  });
});
